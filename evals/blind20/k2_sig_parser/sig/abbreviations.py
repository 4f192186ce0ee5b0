"""Prescription "sig" abbreviations and what they expand to, in priority order (first match wins).

Compiled from the usual pharmacy references; entries may end with an optional period in the source
text ("p.o." / "p.o"), which the tokenizer accepts.
"""

SIG_ABBREVIATIONS = [
    # --- frequency ---
    ("qd", "once daily"), ("q.d", "once daily"), ("daily", "once daily"), ("od", "once daily"),
    ("bid", "twice daily"), ("b.i.d", "twice daily"), ("tid", "three times daily"),
    ("t.i.d", "three times daily"), ("qid", "four times daily"), ("q.i.d", "four times daily"),
    ("qhs", "at bedtime"), ("hs", "at bedtime"), ("q.h.s", "at bedtime"), ("qam", "every morning"),
    ("qpm", "every evening"), ("qod", "every other day"), ("qwk", "once weekly"), ("weekly", "once weekly"),
    ("q1h", "every 1 hours"), ("q2h", "every 2 hours"), ("q3h", "every 3 hours"), ("q4h", "every 4 hours"),
    ("q6h", "every 6 hours"), ("q8h", "every 8 hours"), ("q12h", "every 12 hours"),
    ("q24h", "every 24 hours"), ("q4-6h", "every 4 to 6 hours"), ("q6-8h", "every 6 to 8 hours"),
    ("q.4h", "every 4 hours"), ("q.6h", "every 6 hours"), ("q.8h", "every 8 hours"),
    ("ac", "before meals"), ("a.c", "before meals"), ("pc", "after meals"), ("p.c", "after meals"),
    ("achs", "before meals and at bedtime"), ("stat", "immediately"), ("x1", "one time"),
    ("prn", "as needed"), ("p.r.n", "as needed"), ("ud", "as directed"), ("u.d", "as directed"),
    ("utd", "as directed"), ("aaa", "apply to affected area"),
    # --- routes ---
    ("po", "by mouth"), ("p.o", "by mouth"), ("orally", "by mouth"), ("sl", "under the tongue"),
    ("subl", "under the tongue"), ("bucc", "in the cheek"), ("im", "into the muscle"),
    ("iv", "intravenously"), ("ivp", "intravenous push"), ("ivpb", "intravenous piggyback"),
    ("sc", "under the skin"), ("sq", "under the skin"), ("subq", "under the skin"),
    ("subcut", "under the skin"), ("id", "into the skin"), ("pr", "rectally"), ("pv", "vaginally"),
    ("top", "topically"), ("td", "transdermally"), ("inh", "by inhalation"), ("neb", "by nebulizer"),
    ("ou", "in both eyes"), ("od.", "in the right eye"), ("os", "in the left eye"),
    ("au", "in both ears"), ("ad", "in the right ear"), ("as", "in the left ear"),
    ("ng", "via nasogastric tube"), ("gt", "via gastric tube"), ("peg", "via feeding tube"),
    ("in", "into the nose"), ("nas", "into the nose"), ("ext", "externally"),
    # --- dose forms and units ---
    ("tab", "tablet"), ("tabs", "tablets"), ("t", "tablet"), ("cap", "capsule"), ("caps", "capsules"),
    ("gtt", "drop"), ("gtts", "drops"), ("puff", "puff"), ("puffs", "puffs"), ("inh.", "inhalation"),
    ("supp", "suppository"), ("sup", "suppository"), ("pkt", "packet"), ("amp", "ampule"),
    ("vl", "vial"), ("patch", "patch"), ("ml", "milliliters"), ("cc", "milliliters"),
    ("mg", "milligrams"), ("mcg", "micrograms"), ("ug", "micrograms"), ("g", "grams"), ("gm", "grams"),
    ("u", "units"), ("iu", "units"), ("units", "units"), ("meq", "milliequivalents"),
    ("tsp", "teaspoon"), ("tbsp", "tablespoon"), ("oz", "ounce"), ("l", "liters"),
    ("spr", "spray"), ("sprays", "sprays"), ("app", "application"), ("appl", "application"),
    # --- quantities ---
    ("i", "1"), ("ii", "2"), ("iii", "3"), ("iv.", "4"), ("ss", "0.5"), ("1/2", "0.5"),
    ("one", "1"), ("two", "2"), ("three", "3"), ("half", "0.5"),
    # --- indications and misc ---
    ("sob", "shortness of breath"), ("cp", "chest pain"), ("ha", "headache"), ("n/v", "nausea"),
    ("htn", "blood pressure"), ("dm", "diabetes"), ("bs", "blood sugar"), ("bg", "blood sugar"),
    ("fbs", "fasting blood sugar"), ("sz", "seizure"), ("anx", "anxiety"), ("inf", "infection"),
    ("uti", "urinary infection"), ("abd", "abdominal"), ("pt", "patient"), ("w/", "with"),
    ("w/o", "without"), ("c", "with"), ("s", "without"), ("wf", "with food"), ("wm", "with meals"),
    ("x", "for"), ("d", "days"), ("days", "days"), ("wk", "weeks"), ("wks", "weeks"),
    ("mo", "months"), ("hr", "hours"), ("hrs", "hours"), ("min", "minutes"), ("max", "maximum"),
    ("nte", "not to exceed"), ("qs", "sufficient quantity"), ("disp", "dispense"), ("rf", "refills"),
    ("dtd", "dispense such doses"), ("sig", "instructions"), ("sa", "as directed"),
    ("mdi", "inhaler"), ("ods", "orally disintegrating"), ("er", "extended release"),
    ("xr", "extended release"), ("sr", "sustained release"), ("dr", "delayed release"),
    ("ec", "enteric coated"), ("odt", "orally disintegrating"),
]
