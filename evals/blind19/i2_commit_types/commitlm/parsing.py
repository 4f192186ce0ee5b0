"""Conventional Commits (https://www.conventionalcommits.org) header and footer parsing."""
import re
from dataclasses import dataclass, field

HEADER_RE = re.compile(r"^(?P<type>[a-z]+)(?:\((?P<scope>[^()\r\n]+)\))?(?P<breaking>!)?: (?P<subject>.+)$")
ISSUE_RE = re.compile(r"(?:(?P<repo>[\w.-]+/[\w.-]+)?#(?P<num>\d+))|(?:GH-(?P<gh>\d+))")
FOOTER_RE = re.compile(r"^(?:BREAKING[ -]CHANGE|[A-Za-z][\w-]*)(?:: | #)")


@dataclass
class ParsedCommit:
    type: str
    scope: str
    breaking: bool
    subject: str
    body: str
    issues: list = field(default_factory=list)


def parse_commit(message):
    header, _, rest = message.partition("\n")
    m = HEADER_RE.match(header.strip())
    if m is None:
        return ParsedCommit("other", "", False, header.strip(), rest.strip())
    # the footers are the last paragraph when every line of it is a `Token: value` / `Token #value` trailer
    paragraphs = [p for p in rest.strip().split("\n\n") if p]
    footers = []
    if paragraphs and all(FOOTER_RE.match(line) for line in paragraphs[-1].splitlines()):
        footers = paragraphs.pop().splitlines()
    issues = []
    for line in footers:
        for ref in ISSUE_RE.finditer(line):
            if ref.group("gh"):
                issues.append(("gh", int(ref.group("gh"))))
            else:
                issues.append((ref.group("repo") or "", int(ref.group("num"))))
    breaking = bool(m.group("breaking")) or any(line.startswith(("BREAKING CHANGE", "BREAKING-CHANGE"))
                                                 for line in footers)
    # the training text: subject and body, without the type prefix (the label) and the footers
    return ParsedCommit(m.group("type"), m.group("scope") or "", breaking, m.group("subject"),
                        "\n\n".join(paragraphs), issues)
