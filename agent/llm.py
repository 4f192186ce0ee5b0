"""Ask an OpenAI-compatible endpoint for one edit, validate it, and turn it into a git diff."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jinja2
from pydantic import BaseModel, Field, ValidationError

from agent.context import RunContext
from agent.events import LlmAnswerUnusable, LlmExchange
from agent.state import LoopState
from tools.codemods import NotApplicable
from tools.patching import matches_any

PROMPTS = Path(__file__).resolve().parent / "prompts"
MAX_ATTEMPTS = 2
MAX_FILE_CHARS = 20_000
API_KEY_ENV = "PERFLOOP_LLM_API_KEY"


class Edit(BaseModel):
    """Replace one exact, unique piece of a file."""

    file: str = Field(description="Path relative to the pipeline folder.")
    search: str = Field(min_length=1, description="Exact text to find, once.")
    replace: str


class EditAnswer(BaseModel):
    """What the model must answer."""

    summary: str = Field(min_length=1, description="One line: what changes.")
    edits: list[Edit] = Field(min_length=1)


class BadAnswer(ValueError):
    """The model's answer cannot become a patch; the message is fed back on the next attempt."""


def render_prompt(**values) -> str:
    """Render prompts/propose_edit.j2; a missing value is an error, not an empty string."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(PROMPTS), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    return env.get_template("propose_edit.j2").render(**values)


def parse_answer(content: str) -> EditAnswer:
    """Read the JSON object out of the reply (a ```json fence is tolerated)."""
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", content, re.DOTALL)
    text = fenced.group(1) if fenced else content.strip()
    try:
        return EditAnswer.model_validate(json.loads(text))
    except json.JSONDecodeError as error:
        raise BadAnswer(f"the answer is not one JSON object ({error})") from None
    except ValidationError as error:
        raise BadAnswer(f"the JSON does not match the answer format: {error.errors()[0]['msg']} at "
                        f"{'.'.join(map(str, error.errors()[0]['loc']))}") from None


def apply_edits(root: Path, answer: EditAnswer, editable: list[str]) -> dict[str, str]:
    """Return the new text of each edited file; BadAnswer for a file that is missing or not editable."""
    texts: dict[str, str] = {}
    for edit in answer.edits:
        relative = edit.file.lstrip("./") if edit.file.startswith("./") else edit.file
        path = (root / relative).resolve()
        if not path.is_relative_to(root.resolve()) or not matches_any(relative, editable):
            raise BadAnswer(f"{edit.file} may not be edited (editable: {', '.join(editable)})")
        if relative not in texts:
            if not path.is_file():
                raise BadAnswer(f"{edit.file} does not exist in the pipeline folder")
            texts[relative] = path.read_text(encoding="utf-8")
        count = texts[relative].count(edit.search)
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            raise BadAnswer(f"the search text for {edit.file} {where}; copy a unique piece exactly")
        texts[relative] = texts[relative].replace(edit.search, edit.replace, 1)
    return texts


def _context_files(state: LoopState, root: Path) -> list[dict]:
    """The files the model sees: the hot function's file, the loader's file, the config."""
    profile = state.profile
    wanted = [h.file for h in profile.hot_functions[:1] + profile.main_hot_functions[:1]]
    wanted += [profile.loader.file] if profile.loader else []
    wanted += [state.target.config] if state.target.config else []
    files = []
    for relative in dict.fromkeys(wanted):
        path = root / relative
        if path.is_file():
            files.append({"path": relative, "text": path.read_text(encoding="utf-8")[:MAX_FILE_CHARS]})
    return files


def _ask(state: LoopState, messages: list[dict]) -> str:
    from openai import OpenAI, OpenAIError

    settings = state.settings
    client = OpenAI(base_url=settings.llm_base_url, api_key=os.environ.get(API_KEY_ENV, "unused"),
                    timeout=settings.llm_timeout_s, max_retries=1)
    try:
        reply = client.chat.completions.create(model=settings.llm_model, messages=messages, temperature=0)
    except OpenAIError as error:
        raise NotApplicable(f"the LLM endpoint {settings.llm_base_url} failed: {error}") from None
    return reply.choices[0].message.content or ""


def propose_with_llm(ctx: RunContext, diagnosis, remedy) -> tuple[str, str]:
    """Ask for an edit (retrying once with the error), apply it in the candidate worktree; return (change, diff)."""
    state = ctx.state
    ws = ctx.workspace
    root = ws.target_dir(ws.candidate_tree)
    ws.reset_candidate()
    hot = (state.profile.main_hot_functions if diagnosis.category == "host" else state.profile.hot_functions)[:1]
    prompt = render_prompt(diagnosis=diagnosis, remedy=remedy, evidence=diagnosis.evidence,
                           editable=state.target.editable, hot=hot[0] if hot else None,
                           files=_context_files(state, root))
    messages = [{"role": "user", "content": prompt}]
    for attempt in range(1, MAX_ATTEMPTS + 1):
        content = _ask(state, messages)
        ctx.record(LlmExchange(model=state.settings.llm_model, attempt=attempt, prompt=messages[-1]["content"],
                               answer=content))
        try:
            answer = parse_answer(content)
            texts = apply_edits(root, answer, state.target.editable)
        except BadAnswer as error:
            ctx.record(LlmAnswerUnusable(attempt=attempt, reason=str(error)))
            messages += [{"role": "assistant", "content": content},
                         {"role": "user", "content": f"That answer cannot be applied: {error}. "
                                                     "Answer again in the required JSON format."}]
            continue
        try:
            for relative, text in texts.items():
                (root / relative).write_text(text, encoding="utf-8")
            patch = ws.diff_candidate()
        finally:
            ws.reset_candidate()
        return answer.summary.splitlines()[0], patch
    raise NotApplicable(f"no usable answer from {state.settings.llm_model} after {MAX_ATTEMPTS} attempts")
