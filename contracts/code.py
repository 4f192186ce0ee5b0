"""Code named by the profile: a function by qualified name, file and line."""
import re

from pydantic import BaseModel, Field

COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")
"""The names a comprehension's code object carries (its own frame before 3.12)."""
# One trailing level or a chain of them: before 3.12 a comprehension nested in a comprehension is named
# `f.<locals>.<listcomp>.<locals>.<listcomp>`, and its code is still f's; a lambda's too.
_INNER = re.compile(r"(?:(?:\.<locals>)?\.(?:%s))+$" % "|".join(map(re.escape, (*COMPREHENSIONS, "<lambda>"))))


class FunctionRef(BaseModel):
    """A function in the target's source, as the profile found it."""

    name: str = Field(description="Qualified name, e.g. 'frame_energy' or 'Frames.__getitem__'.")
    file: str = Field(description="Path relative to the target folder when inside it.")
    line: int = Field(description="Line where the function is defined.")

    def where(self) -> str:
        """Say it as people read it: ``name (file:line)``."""
        return f"{self.name} ({self.file}:{self.line})"

    @property
    def defining_name(self) -> str:
        """The function that holds the code: a comprehension or lambda belongs to its enclosing function."""
        return _INNER.sub("", self.name)


__all__ = ["COMPREHENSIONS", "FunctionRef"]
