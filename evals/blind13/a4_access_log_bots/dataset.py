"""Per-request features with per-client activity over the last minute."""
import math
from dataclasses import dataclass, fields

import torch
from torch.utils.data import Dataset

from access_log import METHODS, STATIC_EXT, UA_CLASSES, classify_agent, parse_line

NUMERIC = ("log_bytes", "hour_sin", "hour_cos", "path_depth", "n_query", "has_referer", "is_static",
           "has_user", "req_1m", "distinct_paths_1m", "client_errors_1m", "gap_s")


@dataclass
class LogBatch:
    numeric: torch.Tensor
    agent: torch.Tensor
    method: torch.Tensor
    status: torch.Tensor
    label: torch.Tensor

    def as_dict(self):
        return {f.name: getattr(self, f.name) for f in fields(self)}


def window_stats(lines, i, rec, window_s, lookback_s):
    """Requests, distinct paths and 4xx answers of this client in (t - window_s, t], over the lines
    written up to line i, plus the seconds since its previous request (capped). The log is written in
    completion order, so request times run a little out of order: scan back until lookback_s."""
    t, host = rec["epoch"], rec["host"]
    count, errors, paths, gap = 0, 0, set(), 300.0
    j = i
    while j >= 0:
        other = parse_line(lines[j])
        if other["epoch"] < t - lookback_s:
            break
        if other["host"] == host:
            if t - window_s < other["epoch"] <= t:
                count += 1
                paths.add(other["path"].split("?", 1)[0])
                if 400 <= other["status"] < 500:
                    errors += 1
            if j < i and other["epoch"] <= t:
                gap = min(gap, t - other["epoch"])
        j -= 1
    return count, len(paths), errors, gap


class AccessLogDataset(Dataset):
    def __init__(self, lines, labels, window_s, lookback_s):
        self.lines, self.labels = lines, labels
        self.window_s, self.lookback_s = window_s, lookback_s

    def __len__(self):
        return len(self.lines)

    def featurize(self, i):
        rec = parse_line(self.lines[i])
        path, _, query = rec["path"].partition("?")
        dot = path.rfind(".")
        ext = path[dot:].lower() if dot > path.rfind("/") else ""
        req, distinct, errors, gap = window_stats(self.lines, i, rec, self.window_s, self.lookback_s)
        angle = 2.0 * math.pi * rec["hour"] / 24.0
        numeric = [math.log1p(rec["size"]), math.sin(angle), math.cos(angle),
                   float(len([p for p in path.split("/") if p])), float(len(query.split("&")) if query else 0),
                   float(rec["referer"] != "-"), float(ext in STATIC_EXT), float(rec["user"] != "-"),
                   math.log1p(req), math.log1p(distinct), float(errors), math.log1p(gap)]
        return {
            "numeric": numeric,
            "agent": UA_CLASSES.index(classify_agent(rec["agent"])),
            "method": METHODS.index(rec["method"]) if rec["method"] in METHODS else METHODS.index("other"),
            "status": rec["status"] // 100,
            "label": self.labels[i],
        }

    def __getitem__(self, i):
        return self.featurize(i)

    def __getitems__(self, indices):
        return [self.featurize(i) for i in indices]


def collate_requests(rows):
    return LogBatch(
        numeric=torch.tensor([r["numeric"] for r in rows], dtype=torch.float32),
        agent=torch.tensor([r["agent"] for r in rows]),
        method=torch.tensor([r["method"] for r in rows]),
        status=torch.tensor([r["status"] for r in rows]),
        label=torch.tensor([r["label"] for r in rows], dtype=torch.float32),
    )
