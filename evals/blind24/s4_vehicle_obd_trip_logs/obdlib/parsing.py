"""Reading OBD CSV exports."""
import math


def parse_obd_csv(text):
    """Columns of a CSV export as lists of floats; empty cells carry the last value forward."""
    lines = text.strip().split("\n")
    names = lines[0].split(",")
    cols = {name: [] for name in names}
    last = [0.0] * len(names)
    for line in lines[1:]:
        cells = line.split(",")
        for j, name in enumerate(names):
            cell = cells[j].strip()
            if cell == "" or cell.lower() == "nan":
                value = last[j]
            else:
                value = float(cell)
                if math.isnan(value):
                    value = last[j]
            last[j] = value
            cols[name].append(value)
    return cols
