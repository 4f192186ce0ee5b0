"""Synthetic ORU^R01 messages from four lab systems, for four patient conditions."""
from .codes import ANALYTES

CONDITIONS = ["normal", "diabetic", "renal", "anaemic"]
SHIFT = {"diabetic": {"GLU": 1.8, "HBA1C": 1.6, "TRIG": 1.5}, "renal": {"CREA": 2.8, "BUN": 2.2, "K": 1.15},
         "anaemic": {"HGB": 0.7, "HCT": 0.72, "RBC": 0.75, "MCV": 0.85}}
UNIT_ESC = {"10*3/uL": "10\\S\\3/uL", "10*6/uL": "10\\S\\6/uL"}


def _hl7_escape(text):
    return text.replace("\\", "\\E\\").replace("|", "\\F\\").replace("^", "\\S\\").replace("~", "\\R\\")


def make_messages(rng, code_table, n_messages):
    by_system = {}
    for e in code_table:
        if e.status == "A" and e.low is not None:
            by_system.setdefault(e.system, {}).setdefault(e.name, e)
    systems = sorted(by_system)
    messages, labels = [], []
    for m in range(n_messages):
        cond = rng.choice(CONDITIONS)
        system = rng.choice(systems)
        codes = by_system[system]
        si = rng.random() < 0.3 and system != "LN"
        segs = [f"MSH|^~\\&|LIS|{system}|EHR|HOSP|2024{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
                f"{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}||ORU^R01^ORU_R01|MSG{m:06d}|P|2.5.1",
                f"PID|1||{rng.randint(100000, 999999)}^^^HOSP^MR||{_hl7_escape(rng.choice(['DOE', 'SMITH', 'O|NEIL']))}"
                f"^{rng.choice(['ANN', 'JO', 'LEE'])}||19{rng.randint(30, 99)}0{rng.randint(1, 9)}15|{rng.choice('MF')}",
                f"OBR|1|{rng.randint(10000, 99999)}|{rng.randint(10000, 99999)}|PANEL^Chemistry and CBC^L"]
        n_obx = 0
        for name, loinc, unit, low, high, si_unit, factor in ANALYTES:
            if rng.random() < 0.12:
                continue
            entry = codes[name]
            mid, half = (low + high) / 2, (high - low) / 2
            value = (mid + rng.gauss(0, 0.8) * half) * SHIFT.get(cond, {}).get(name, 1.0)
            value = max(value, 0.01)
            lo_s, hi_s = low, high
            u = unit
            if si and si_unit:
                value, lo_s, hi_s, u = value / factor, low / factor, high / factor, si_unit
            vtext = f"{value:.2f}"
            if name == "CRP" and value < 1.0:
                vtext = "<1.0"
            r = rng.random()
            rng_text = f"{lo_s:.2f}-{hi_s:.2f}" if r < 0.7 else (f"<{hi_s:.2f}" if r < 0.8 else "")
            flag = ""
            if rng.random() < 0.6:
                flag = "H" if value > hi_s else ("L" if value < lo_s else "N")
            n_obx += 1
            segs.append(f"OBX|{n_obx}|NM|{entry.code.strip()}^{entry.name}^{system}||{vtext}|"
                        f"{UNIT_ESC.get(u, u)}|{rng_text}|{flag}|||F|||2024")
            if rng.random() < 0.15:
                segs.append(f"NTE|1|L|{_hl7_escape('Specimen slightly haemolysed | repeat advised ^ see ~ note')}")
        messages.append("\r".join(segs))
        labels.append(CONDITIONS.index(cond))
    return messages, labels
