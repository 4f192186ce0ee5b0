"""A synthetic git log: conventional-commit messages with identifiers and issue footers."""
import random

COMMIT_TYPES = ("feat", "fix", "docs", "refactor", "test", "chore", "perf", "ci")
SCOPES = ("parser", "api", "cli", "auth", "db", "ui", "core", "deps", "config", "http", "cache", "build")

_TYPE_WORDS = {
    "feat": "add support introduce new option allow enable implement expose endpoint flag",
    "fix": "fix crash handle null correct wrong prevent race off by one regression broken",
    "docs": "document readme update docs example typo clarify guide comment docstring",
    "refactor": "refactor extract rename move simplify split cleanup restructure inline helper",
    "test": "test add tests cover case fixture mock assert unit integration flaky",
    "chore": "bump version update dependency release chore housekeeping lockfile tooling",
    "perf": "speed up faster cache avoid allocation reduce memory optimize lazy batch",
    "ci": "pipeline workflow github actions matrix runner job lint step cache",
}
_COMMON = ("the when in for of to on with from and by use instead during after before "
           "unless value values config request response error errors path file module").split()
_PARTS = ("get set parse load save read write user session token config file path http "
          "client server request response handler cache key value list map index node tree "
          "build render update delete create query result error retry timeout buffer stream "
          "json yaml url id name count size max min default async sync worker pool job queue").split()


def _identifier(rng):
    parts = rng.sample(_PARTS, rng.randint(2, 3))
    style = rng.random()
    if style < 0.4:  # camelCase
        return parts[0] + "".join(p.capitalize() for p in parts[1:])
    if style < 0.7:  # snake_case
        return "_".join(parts)
    if style < 0.85:  # PascalCase with an acronym
        return "".join(p.upper() if p in ("http", "json", "url", "id") else p.capitalize() for p in parts)
    return "_".join(parts).upper()  # CONSTANT_CASE


def _sentence(rng, kind, identifiers, n_words):
    own = _TYPE_WORDS[kind].split()
    words = []
    for _ in range(n_words):
        r = rng.random()
        if r < 0.35:
            words.append(rng.choice(own))
        elif r < 0.55:
            words.append(rng.choice(_TYPE_WORDS[rng.choice(COMMIT_TYPES)].split()))
        elif r < 0.8:
            words.append(rng.choice(_COMMON))
        else:
            words.append("`" + rng.choice(identifiers) + "`")
    return " ".join(words)


def _footer(rng):
    lines = []
    for _ in range(rng.randint(0, 3)):
        r = rng.random()
        if r < 0.4:
            lines.append(f"Fixes #{rng.randint(1, 4000)}")
        elif r < 0.7:
            lines.append(f"Refs: GH-{rng.randint(1, 900)}")
        elif r < 0.85:
            lines.append(f"Closes: acme/{rng.choice(SCOPES)}#{rng.randint(1, 300)}")
        else:
            lines.append(f"Reviewed-by: dev{rng.randint(1, 40)}")
    return lines


def generate_commits(num_commits, num_identifiers, body_lines=(1, 4), seed=0):
    rng = random.Random(seed)
    identifiers = [_identifier(rng) for _ in range(num_identifiers)]
    commits = []
    for _ in range(num_commits):
        kind = rng.choice(COMMIT_TYPES)
        scope = f"({rng.choice(SCOPES)})" if rng.random() < 0.7 else ""
        bang = "!" if rng.random() < 0.08 else ""
        header = f"{kind}{scope}{bang}: {_sentence(rng, kind, identifiers, rng.randint(4, 9))}"
        body = [_sentence(rng, kind, identifiers, rng.randint(8, 16)) + "."
                for _ in range(rng.randint(*body_lines))]
        footer = _footer(rng)
        if bang and rng.random() < 0.5:
            footer.append("BREAKING CHANGE: " + _sentence(rng, kind, identifiers, 6))
        commits.append("\n\n".join([header, "\n".join(body)] + (["\n".join(footer)] if footer else [])))
    return commits
