"""A small BibTeX reader: entry header, brace-balanced field values, LaTeX accent folding."""
import re
import unicodedata

_HEADER = re.compile(r"@(\w+)\s*\{\s*([^,\s]+)\s*,")
_FIELD_NAME = re.compile(r"\s*([A-Za-z_-]+)\s*=\s*")
_ACCENTS = [("{\\'e}", "é"), ("{\\o}", "ø"), ('{\\"o}', "ö"), ('{\\"u}', "ü"), ("{\\c c}", "ç"), ("{\\'a}", "á")]
_CMD = re.compile(r"\\(url|emph|textit|textbf)\{([^}]*)\}")


def _read_value(text, pos):
    """Read a {...} or "..." value starting at text[pos]; return (value, next_pos)."""
    if text[pos] == "{":
        depth, i = 0, pos
        while i < len(text):
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[pos + 1:i], i + 1
            i += 1
        raise ValueError("unbalanced braces")
    if text[pos] == '"':
        end = text.index('"', pos + 1)
        return text[pos + 1:end], end + 1
    m = re.compile(r"[^,}\s]+").match(text, pos)
    return m.group(0), m.end()


def parse_entry(text):
    head = _HEADER.search(text)
    if head is None:
        raise ValueError("not a BibTeX entry")
    fields = {}
    pos = head.end()
    while True:
        m = _FIELD_NAME.match(text, pos)
        if m is None:
            break
        value, pos = _read_value(text, m.end())
        fields[m.group(1).lower()] = value
        while pos < len(text) and text[pos] in " \t\n,":
            pos += 1
    return head.group(2), fields


def latex_to_text(value):
    for src, dst in _ACCENTS:
        value = value.replace(src, dst)
    value = _CMD.sub(lambda m: m.group(2), value)
    value = value.replace("{", "").replace("}", "").replace("--", "-")
    return unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
