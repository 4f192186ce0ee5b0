#!/usr/bin/env python3
"""DeepLog-style next-event prediction on syslog streams.

Raw syslog lines are split into fields with a regex, timestamps parsed with
datetime.strptime (syslog omits the year), and messages mapped to event templates
mined with a Drain-like parser (fixed-depth buckets by token count and first token,
token similarity, wildcard merging). A small conv model predicts the event that
follows a window of events.
"""
import argparse
import heapq
import json
import math
import random
import re
from datetime import datetime, timedelta

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit

SYSLOG_RE = re.compile(
    r"^(?P<month>[A-Z][a-z]{2}) (?P<day>[ \d]\d) (?P<time>\d\d:\d\d:\d\d) "
    r"(?P<host>[\w.-]+) (?P<proc>[\w./()-]+?)(?:\[(?P<pid>\d+)\])?: (?P<msg>.*)$"
)

# --------------------------------------------------------------------------- log synthesis

USERS = ["alice", "bob", "carol", "deploy", "backup", "nagios", "root", "www-data"]
SERVICES = ["nginx", "postgresql", "redis-server", "cron", "ssh", "postfix"]
COMMANDS = ["systemctl", "journalctl", "apt-get", "tail", "vim", "docker"]


def _ip(rng):
    return f"{rng.choice([10, 172, 192])}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def _scenario(rng, host):
    """One burst of related events: list of (seconds offset, process, message)."""
    kind = rng.choices(["ssh", "bruteforce", "cron", "dhcp", "mail", "oom", "service"],
                       weights=[5, 2, 6, 2, 4, 1, 2])[0]
    user, ip, port = rng.choice(USERS), _ip(rng), rng.randint(1024, 65535)
    pid = rng.randint(300, 32000)
    if kind == "ssh":
        sess = rng.randint(1, 9999)
        ev = [(0, f"sshd[{pid}]", f"Accepted password for {user} from {ip} port {port} ssh2"),
              (0, f"sshd[{pid}]", f"pam_unix(sshd:session): session opened for user {user} by (uid=0)"),
              (1, "systemd-logind", f"New session {sess} of user {user}.")]
        t = 2
        for _ in range(rng.randint(0, 3)):
            t += rng.randint(5, 600)
            ev.append((t, "sudo", f"{user} : TTY=pts/{rng.randint(0, 9)} ; PWD=/home/{user} ; USER=root ; "
                                  f"COMMAND=/usr/bin/{rng.choice(COMMANDS)}"))
        t += rng.randint(10, 1800)
        ev += [(t, f"sshd[{pid}]", f"Received disconnect from {ip} port {port}:11: disconnected by user"),
               (t, f"sshd[{pid}]", f"pam_unix(sshd:session): session closed for user {user}"),
               (t + 1, "systemd-logind", f"Removed session {sess}.")]
        return ev
    if kind == "bruteforce":
        ev, t = [], 0
        for _ in range(rng.randint(3, 12)):
            t += rng.randint(1, 4)
            bad = rng.choice(["admin", "test", "oracle", "ubuntu", "pi", user])
            ev.append((t, f"sshd[{pid}]", f"Failed password for invalid user {bad} from {ip} port {rng.randint(1024, 65535)} ssh2"))
        ev.append((t + 1, f"sshd[{pid}]", f"Connection closed by {ip} port {port} [preauth]"))
        return ev
    if kind == "cron":
        job = rng.choice(["/usr/lib/sysstat/sa1 1 1", "run-parts /etc/cron.hourly", "/usr/local/bin/backup.sh --incremental"])
        return [(0, f"CRON[{pid}]", f"pam_unix(cron:session): session opened for user {user} by (uid=0)"),
                (0, f"CRON[{pid + 1}]", f"({user}) CMD ({job})"),
                (rng.randint(1, 50), f"CRON[{pid}]", f"pam_unix(cron:session): session closed for user {user}")]
    if kind == "dhcp":
        server = _ip(rng)
        return [(0, f"dhclient[{pid}]", f"DHCPREQUEST of {ip} on eth0 to {server} port 67 (xid=0x{rng.getrandbits(32):08x})"),
                (0, f"dhclient[{pid}]", f"DHCPACK of {ip} from {server} (xid=0x{rng.getrandbits(32):08x})"),
                (1, f"dhclient[{pid}]", f"bound to {ip} -- renewal in {rng.randint(600, 43200)} seconds.")]
    if kind == "mail":
        qid = f"{rng.getrandbits(40):010X}"
        ev = [(0, f"postfix/smtpd[{pid}]", f"connect from unknown[{ip}]")]
        if rng.random() < 0.4:
            ev.append((1, f"postfix/smtpd[{pid}]", f"NOQUEUE: reject: RCPT from unknown[{ip}]: 554 5.7.1 <{user}@example.org>: Relay access denied"))
        else:
            ev.append((1, f"postfix/smtpd[{pid}]", f"{qid}: client=unknown[{ip}]"))
            ev.append((2, f"postfix/qmgr[{rng.randint(300, 900)}]", f"{qid}: from=<{user}@example.com>, size={rng.randint(400, 90000)}, nrcpt=1 (queue active)"))
        ev.append((3, f"postfix/smtpd[{pid}]", f"disconnect from unknown[{ip}] ehlo=1 mail=1 rcpt=0/1 quit=1 commands=3/4"))
        return ev
    if kind == "oom":
        up = f"{rng.uniform(1000, 900000):.6f}"
        victim = rng.choice(["java", "python3", "node", "postgres"])
        return [(0, "kernel", f"[{up}] {victim} invoked oom-killer: gfp_mask=0x{rng.getrandbits(24):x}, order=0, oom_score_adj=0"),
                (0, "kernel", f"[{up}] Out of memory: Killed process {pid} ({victim}) total-vm:{rng.randint(10**5, 10**7)}kB, anon-rss:{rng.randint(10**4, 10**6)}kB"),
                (1, "systemd", f"{rng.choice(SERVICES)}.service: Main process exited, code=killed, status=9/KILL")]
    svc = rng.choice(SERVICES)
    return [(0, "systemd", f"Stopping {svc}.service..."),
            (rng.randint(0, 3), "systemd", f"Stopped {svc}.service."),
            (rng.randint(3, 6), "systemd", f"Started {svc}.service.")]


def synth_syslog(seed, start, num_scenarios, hosts):
    """Interleave scenario bursts from several hosts into one chronological syslog stream."""
    rng = random.Random(seed)
    t0 = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
    heap, seq, t = [], 0, 0.0
    for _ in range(num_scenarios):
        t += rng.expovariate(1 / 55.0)
        host = rng.choice(hosts)
        for off, proc, msg in _scenario(rng, host):
            heapq.heappush(heap, (int(t) + off, seq, host, proc, msg))
            seq += 1
    lines = []
    while heap:
        sec, _, host, proc, msg = heapq.heappop(heap)
        ts = t0 + timedelta(seconds=sec)
        lines.append(f"{ts.strftime('%b')} {ts.day:2d} {ts.strftime('%H:%M:%S')} {host} {proc}: {msg}")
    return lines


# --------------------------------------------------------------------------- Drain-like miner

class LogCluster:
    __slots__ = ("cluster_id", "template", "size")

    def __init__(self, cluster_id, template):
        self.cluster_id = cluster_id
        self.template = template
        self.size = 1


class TemplateMiner:
    """Drain-like template miner: buckets by (token count, first token), merge on similarity."""

    WILDCARD = "<*>"

    def __init__(self, masks, similarity_threshold=0.5):
        self.masks = [(pattern, repl) for pattern, repl in masks]
        self.st = similarity_threshold
        self.buckets = {}
        self.clusters = []

    def preprocess(self, message):
        for pattern, repl in self.masks:
            message = re.sub(pattern, repl, message)
        return message.split()

    @staticmethod
    def similarity(template, tokens):
        same = sum(1 for a, b in zip(template, tokens) if a == b)
        params = sum(1 for a in template if a == TemplateMiner.WILDCARD)
        return same / len(tokens), params

    def _best(self, candidates, tokens):
        best, best_key = None, (-1.0, -1)
        for cluster in candidates:
            key = self.similarity(cluster.template, tokens)
            if key > best_key:
                best, best_key = cluster, key
        if best is not None and best_key[0] >= self.st:
            return best
        return None

    def add(self, message):
        tokens = self.preprocess(message)
        if not tokens:
            tokens = [""]
        key = (len(tokens), tokens[0] if not any(c.isdigit() for c in tokens[0]) else self.WILDCARD)
        bucket = self.buckets.setdefault(key, [])
        cluster = self._best(bucket, tokens)
        if cluster is None:
            cluster = LogCluster(len(self.clusters) + 1, list(tokens))
            self.clusters.append(cluster)
            bucket.append(cluster)
        else:
            cluster.template = [a if a == b else self.WILDCARD for a, b in zip(cluster.template, tokens)]
            cluster.size += 1
        return cluster.cluster_id

    def match(self, message):
        """Template id of a message against the mined templates (0 = unknown)."""
        tokens = self.preprocess(message)
        candidates = [c for c in self.clusters if len(c.template) == len(tokens)]
        cluster = self._best(candidates, tokens)
        return cluster.cluster_id if cluster is not None else 0

    def __len__(self):
        return len(self.clusters)


# --------------------------------------------------------------------------- dataset

class SyslogWindows(IterableDataset):
    """Random windows of consecutive syslog lines -> event ids, log time gaps, host ids, next event."""

    def __init__(self, lines, miner, hosts, start, window, windows_per_epoch, seed):
        self.lines = lines
        self.miner = miner
        self.host_ids = {h: i + 1 for i, h in enumerate(hosts)}
        self.start = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.window = window
        self.windows_per_epoch = windows_per_epoch
        self.seed = seed
        self.epoch = 0

    def parse(self, line):
        m = SYSLOG_RE.match(line)
        if m is None:
            return None
        stamp = f"{self.start.year} {m['month']} {m['day'].strip()} {m['time']}"
        ts = datetime.strptime(stamp, "%Y %b %d %H:%M:%S")
        if ts < self.start - timedelta(days=1):  # syslog has no year: Jan after Dec rolls over
            ts = ts.replace(year=ts.year + 1)
        return ts, self.host_ids.get(m["host"], 0), self.miner.match(m["msg"])

    def encode(self, start):
        events, gaps, hosts = [], [], []
        prev = None
        for line in self.lines[start:start + self.window + 1]:
            rec = self.parse(line)
            if rec is None:
                continue
            ts, host, event = rec
            events.append(event)
            hosts.append(host)
            gaps.append(0.0 if prev is None else math.log1p((ts - prev).total_seconds()))
            prev = ts
        return {
            "events": torch.tensor(events[:-1], dtype=torch.long),
            "hosts": torch.tensor(hosts[:-1], dtype=torch.long),
            "gaps": torch.tensor(gaps[:-1], dtype=torch.float32),
            "next_event": torch.tensor(events[-1], dtype=torch.long),
        }

    def __iter__(self):
        rng = random.Random(self.seed * 1000 + self.epoch)
        self.epoch += 1
        last = len(self.lines) - self.window - 1
        for _ in range(self.windows_per_epoch):
            yield self.encode(rng.randint(0, last))


# --------------------------------------------------------------------------- model

class EventConvNet(nn.Module):
    def __init__(self, num_events, num_hosts, embed_dim, host_dim, hidden):
        super().__init__()
        self.event_emb = nn.Embedding(num_events, embed_dim)
        self.host_emb = nn.Embedding(num_hosts, host_dim)
        self.conv = nn.Conv1d(embed_dim + host_dim + 1, hidden, kernel_size=5, padding=2)
        self.out = nn.Linear(2 * hidden, num_events)

    def forward(self, events, hosts, gaps):
        x = torch.cat([self.event_emb(events), self.host_emb(hosts), gaps.unsqueeze(-1)], dim=-1)
        h = F.relu(self.conv(x.transpose(1, 2)))
        pooled = torch.cat([h.mean(dim=2), h[:, :, -1]], dim=1)
        return self.out(pooled)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="config.json")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    lcfg, dcfg, ldcfg = cfg["logs"], cfg["drain"], cfg["loader"]
    lines = synth_syslog(seed, lcfg["start"], lcfg["num_scenarios"], lcfg["hosts"])
    miner = TemplateMiner(dcfg["masks"], dcfg["similarity_threshold"])
    for line in lines:
        m = SYSLOG_RE.match(line)
        if m:
            miner.add(m["msg"])
    print(f"{len(lines)} lines, {len(miner)} templates")

    dataset = SyslogWindows(lines, miner, lcfg["hosts"], lcfg["start"], ldcfg["window"],
                            ldcfg["windows_per_epoch"], seed)
    loader = DataLoader(dataset, batch_size=ldcfg["batch_size"], num_workers=ldcfg["num_workers"])

    mcfg = cfg["model"]
    model = EventConvNet(len(miner) + 1, len(lcfg["hosts"]) + 1, mcfg["embed_dim"], mcfg["host_dim"], mcfg["hidden"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    meter = evalkit.Meter()

    max_steps = cfg["optim"]["max_steps"]
    step, hits, total = 0, 0, 0
    while step < max_steps and not meter.done():
        for batch in loader:  # a fresh iterator (new random windows) each pass
            meter.batch(batch)
            logits = model(batch["events"], batch["hosts"], batch["gaps"])
            loss = F.cross_entropy(logits, batch["next_event"])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            meter.step(loss)
            hits += int((logits.argmax(1) == batch["next_event"]).sum())
            total += batch["next_event"].numel()
            step += 1
            if step % 20 == 0:
                print(f"step {step} loss {loss.item():.4f} top1 {hits / total:.3f}")
            if step >= max_steps or meter.done():
                break
    meter.report({"templates": len(miner), "top1": round(hits / max(total, 1), 6), "passes": dataset.epoch})


if __name__ == "__main__":
    main()
