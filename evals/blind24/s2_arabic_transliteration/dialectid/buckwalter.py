"""Buckwalter transliteration with orthographic normalisation."""

# (arabic, latin) pairs, in the order of the Buckwalter table
BUCKWALTER = [
    ("\u0621", "'"), ("\u0622", "|"), ("\u0623", ">"), ("\u0624", "&"), ("\u0625", "<"),
    ("\u0626", "}"), ("\u0627", "A"), ("\u0628", "b"), ("\u0629", "p"), ("\u062a", "t"),
    ("\u062b", "v"), ("\u062c", "j"), ("\u062d", "H"), ("\u062e", "x"), ("\u062f", "d"),
    ("\u0630", "*"), ("\u0631", "r"), ("\u0632", "z"), ("\u0633", "s"), ("\u0634", "$"),
    ("\u0635", "S"), ("\u0636", "D"), ("\u0637", "T"), ("\u0638", "Z"), ("\u0639", "E"),
    ("\u063a", "g"), ("\u0641", "f"), ("\u0642", "q"), ("\u0643", "k"), ("\u0644", "l"),
    ("\u0645", "m"), ("\u0646", "n"), ("\u0647", "h"), ("\u0648", "w"), ("\u0649", "Y"),
    ("\u064a", "y"),
]
DIACRITICS = ["\u064b", "\u064c", "\u064d", "\u064e", "\u064f", "\u0650", "\u0651", "\u0652", "\u0670"]
TATWEEL = "\u0640"
ALEF_FORMS = ["\u0622", "\u0623", "\u0625", "\u0671"]


def normalise_letter(ch):
    """Fold spelling variants: alef forms -> bare alef, ta marbuta -> ha, alef maqsura -> ya,
    hamza on waw/ya -> waw/ya."""
    if ch in ALEF_FORMS:
        return "\u0627"
    if ch == "\u0629":
        return "\u0647"
    if ch == "\u0649":
        return "\u064a"
    if ch == "\u0624":
        return "\u0648"
    if ch == "\u0626":
        return "\u064a"
    return ch


def transliterate(text, unknown="?"):
    out = []
    for ch in text:
        if ch in DIACRITICS or ch == TATWEEL:
            continue
        if ch == " " or ch.isdigit():
            out.append(ch if ch == " " else "#")
            continue
        ch = normalise_letter(ch)
        for ar, lat in BUCKWALTER:
            if ar == ch:
                out.append(lat)
                break
        else:
            out.append(unknown)
    return "".join(out)
