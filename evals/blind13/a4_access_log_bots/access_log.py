"""Apache/nginx combined log format: simulation and parsing.

    host ident authuser [dd/Mon/yyyy:HH:MM:SS +zzzz] "METHOD path PROTO" status bytes "referer" "user-agent"
"""
import datetime as dt
import random
import re

LINE_RE = re.compile(
    r'^(?P<host>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<time>[^\]]+)\] '
    r'"(?P<request>[^"]*)" (?P<status>\d{3}) (?P<size>\d+|-) "(?P<referer>[^"]*)" "(?P<agent>[^"]*)"$')
TIME_FMT = "%d/%b/%Y:%H:%M:%S %z"

UA_RULES = [  # first match wins
    ("bot", re.compile(r"googlebot|bingbot|yandex(bot)?|baiduspider|duckduckbot|ahrefsbot|semrushbot", re.I)),
    ("tool", re.compile(r"^(curl|wget|python-requests|go-http-client|java|okhttp|scrapy)[/ ]", re.I)),
    ("mobile", re.compile(r"(iphone|android|mobile)", re.I)),
    ("edge", re.compile(r"edg(e|a|ios)?/", re.I)),
    ("chrome", re.compile(r"(chrome|crios)/\d+", re.I)),
    ("firefox", re.compile(r"(firefox|fxios)/\d+", re.I)),
    ("safari", re.compile(r"version/[\d.]+ .*safari/", re.I)),
]
UA_CLASSES = ["other"] + [name for name, _ in UA_RULES]
METHODS = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "other"]
STATIC_EXT = {".css", ".js", ".png", ".jpg", ".gif", ".svg", ".ico", ".woff2"}

BROWSER_UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
]
BOT_UAS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "curl/8.5.0", "python-requests/2.31.0", "Wget/1.21.4", "Scrapy/2.11.0 (+https://scrapy.org)",
]
PAGES = ["/", "/index.html", "/products", "/products/{id}", "/cart", "/checkout", "/blog/{slug}", "/search?q={q}",
         "/api/v1/items?page={n}", "/api/v1/items/{id}", "/login", "/account/orders"]
ASSETS = ["/static/app.{h}.js", "/static/style.{h}.css", "/img/logo.png", "/img/p{id}.jpg", "/favicon.ico",
          "/fonts/inter.woff2"]
PROBES = ["/wp-login.php", "/.env", "/admin/config.php", "/phpmyadmin/", "/.git/HEAD", "/xmlrpc.php"]


def _fill(rng, path):
    return path.format(id=rng.randint(1, 5000), slug=f"post-{rng.randint(1, 300)}", q=rng.choice(
        ["shoes", "red+dress", "usb-c", "gift"]), n=rng.randint(1, 40), h=format(rng.getrandbits(32), "08x"))


def simulate_log(num_lines, num_humans, num_bots, span_hours, max_disorder_s, seed):
    """Lines of a combined-format log, in write order (request time can run a few seconds out of order),
    and the ground truth: is the client a bot."""
    rng = random.Random(seed)
    start = dt.datetime(2026, 3, 14, 9, 0, 0, tzinfo=dt.timezone(dt.timedelta(hours=-7)))
    clients = []
    for i in range(num_humans):
        clients.append({"ip": f"{rng.randint(11, 220)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
                        "bot": False, "ua": rng.choice(BROWSER_UAS), "rate": rng.uniform(0.5, 2.0)})
    for i in range(num_bots):
        disguised = rng.random() < 0.35
        clients.append({"ip": f"{rng.choice([66, 157, 185, 45])}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
                        "bot": True, "ua": rng.choice(BROWSER_UAS if disguised else BOT_UAS),
                        "rate": rng.uniform(4.0, 14.0)})
    weights = [c["rate"] for c in clients]
    span = span_hours * 3600.0
    times = sorted(rng.uniform(0, span) for _ in range(num_lines))
    events = []
    for t in times:
        c = rng.choices(clients, weights)[0]
        written = t + rng.uniform(0, max_disorder_s)  # logged when the response completes
        events.append((written, t, c))
    events.sort(key=lambda e: e[0])
    lines, truth = [], []
    for _, t, c in events:
        when = start + dt.timedelta(seconds=int(t))
        if c["bot"] and rng.random() < 0.25:
            path, status = rng.choice(PROBES), rng.choice([404, 404, 403, 301])
        elif not c["bot"] and rng.random() < 0.55:
            path, status = _fill(rng, rng.choice(ASSETS)), rng.choice([200, 200, 200, 304])
        else:
            path, status = _fill(rng, rng.choice(PAGES)), rng.choice([200, 200, 200, 200, 302, 404, 500])
        method = "POST" if path in ("/checkout", "/login") and rng.random() < 0.6 else (
            "HEAD" if c["bot"] and rng.random() < 0.1 else "GET")
        size = "-" if status in (304, 301, 302) else str(int(rng.lognormvariate(8, 1.3)))
        referer = "-" if c["bot"] or rng.random() < 0.2 else "https://shop.example.com" + rng.choice(["/", "/products", "/cart"])
        user = "-" if rng.random() < 0.97 else "alice"
        stamp = when.strftime(TIME_FMT)
        lines.append(f'{c["ip"]} - {user} [{stamp}] "{method} {path} HTTP/1.1" {status} {size} "{referer}" "{c["ua"]}"')
        truth.append(1 if c["bot"] else 0)
    return lines, truth


def parse_line(line):
    m = LINE_RE.match(line)
    if m is None:
        raise ValueError(f"unparseable log line: {line[:80]!r}")
    rec = m.groupdict()
    when = dt.datetime.strptime(rec["time"], TIME_FMT)
    rec["epoch"] = when.timestamp()
    rec["hour"] = when.hour + when.minute / 60.0
    parts = rec["request"].split(" ")
    rec["method"], rec["path"] = (parts[0], parts[1]) if len(parts) == 3 else ("other", rec["request"])
    rec["status"] = int(rec["status"])
    rec["size"] = 0 if rec["size"] == "-" else int(rec["size"])
    return rec


def classify_agent(agent):
    for name, pattern in UA_RULES:
        if pattern.search(agent):
            return name
    return "other"
