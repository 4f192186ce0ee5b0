"""README is a user's document: short, with the two commands, and every relative link in it and docs/ resolves."""
from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_README_WORDS = 2500

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _prose(text: str) -> str:
    """Return ``text`` without fenced code blocks and inline code, where a bracket is not a link."""
    return _INLINE_CODE.sub("", _FENCE.sub("", text))


def _anchor(heading: str) -> str:
    """Return the anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_anchor(heading) for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8")))}


def _relative_links(path: Path) -> list[str]:
    targets = _LINK.findall(_prose(path.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t)]


def _two_commands_section() -> str:
    text = README.read_text(encoding="utf-8")
    assert "\n## The two commands\n" in text, "README lost its '## The two commands' section"
    return text.split("\n## The two commands\n", 1)[1].split("\n## ", 1)[0]


def test_readme_is_at_most_2500_words():
    words = len(README.read_text(encoding="utf-8").split())
    assert words <= MAX_README_WORDS, (f"README.md has {words} words (code blocks included), more than "
                                       f"{MAX_README_WORDS}: move internals to docs/ and link them")


def test_every_relative_link_in_readme_and_docs_resolves():
    assert DOCS, "docs/ holds no .md files"
    broken = []
    for path in [README, *DOCS]:
        links = _relative_links(path)
        assert path != README or any(link.startswith("docs/") for link in links), "README links to nothing in docs/"
        for link in links:
            file_part, _, anchor = link.partition("#")
            target = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(ROOT)}: {link}"
            if not target.exists():
                broken.append(f"{where} (no file {target})")
            elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
                broken.append(f"{where} (no heading with anchor #{anchor} in {target.relative_to(ROOT)})")
    assert not broken, "broken relative links:\n" + "\n".join(broken)


def test_readme_gives_the_two_commands_verbatim():
    section = _two_commands_section()
    blocks = re.findall(r"^```bash\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert [block.strip() for block in blocks] == ["bash scripts/example.sh", "bash scripts/test.sh"], \
        f"README's two commands changed: {blocks}"
    assert "set up `.venv`, copy the bundled data-bound example into a fresh\ngit repo" in section
    assert (ROOT / "scripts" / "example.sh").is_file() and (ROOT / "scripts" / "test.sh").is_file()


def test_ci_runs_the_readme_test_command():
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in README.read_text(encoding="utf-8")


def test_the_link_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[ok](#title) [gone](missing.md) `[not a link](nowhere.md)`\n\n"
                    "```\n[in code](nowhere.md)\n```\n<https://example.org>\n", encoding="utf-8")
    assert _relative_links(page) == ["#title", "missing.md"]
    assert _anchors(page) == {"title"}
    assert _anchor("The `--json` summary (last stdout line)") == "the---json-summary-last-stdout-line"
