"""Running sums (a mixin of ``Translator``): `acc += t` in a loop's pass, then `acc` read later in that pass.

`tp += 1` then `precisions.append(tp / (tp + fp))`, or `total += x` then `out.append(total)`: the value a
read sees is the sum of the terms so far, which `np.cumsum` computes left to right as the loop adds, so it is
the loop's bit for bit (`+ 0` turns an all-`-0.0` start into 0.0, as adding to the loop's 0 does). A running
product (`g *= 1.0 - d / n` then `steps.append((t, g))`, a Kaplan-Meier curve) is `np.cumprod` the same way.
Taken for sums in the outer loop that start at a literal 0 or 0.0 before it, and products that start at 1.0; a read
before the update in the pass (the
previous pass's value) stays a loop-carried dependency, refused. A running sum no line reads is left out.
"""
from __future__ import annotations

import ast
import re

from perfloop.tools.change.codemods.loops import Val, is_number_literal


class RunningRules:
    """``running`` after each sum's update, ``drop_unread_running`` once the loop's lines are written."""

    def running(self, acc: str, kind: str, term: Val) -> None:
        """After `acc += t` in the outer loop's pass, later reads of `acc` see its running sum, where the sum
        starts at a literal 0 before the loop (`self.starts`); after `acc *= t`, its running product, where the
        product starts at the float 1.0 (np.cumprod multiplies left to right, as the loop did; an int product
        would wrap where Python's grows)."""
        start = self.starts.get(acc)
        if kind not in ("sum", "prod") or self.depth != 1 or term.depth != 1 or start is None \
                or not is_number_literal(start) or ast.literal_eval(start) != (0 if kind == "sum" else 1) \
                or kind == "prod" and not isinstance(ast.literal_eval(start), float):
            return
        name = self.fresh(f"{acc}_running")
        dtype = ", dtype=np.float64" if isinstance(ast.literal_eval(start), float) else ""
        made = f"np.cumsum({term.src}{dtype}) + 0" if kind == "sum" else f"np.cumprod({term.src}{dtype})"
        self.lines.append(f"{name} = {made}")
        self.env[acc] = Val(name, 1)
        self.carried.discard(acc)
        self.running_names[name] = acc

    def drop_unread_running(self) -> None:
        """Leave out the running sums no later line reads (the sum was only a total)."""
        for name, acc in list(self.running_names.items()):
            if not any(re.search(rf"\b{name}\b", line) for line in self.lines if not line.startswith(f"{name} =")):
                self.lines = [line for line in self.lines if not line.startswith(f"{name} =")]
                del self.running_names[name]
