"""A synthetic corpus of benign and phishing URLs (seeded, no downloads)."""
import random
import string

BRANDS = ["paypal", "apple", "microsoft", "amazon", "netflix", "chase", "wellsfargo", "dropbox",
          "office365", "linkedin", "instagram", "coinbase", "dhl", "fedex", "usps", "outlook"]
WORDS = ["news", "blog", "docs", "help", "support", "store", "shop", "about", "careers", "products",
         "search", "images", "articles", "2023", "2024", "guide", "release-notes", "pricing",
         "account", "profile", "settings", "login", "signin", "verify", "update", "secure",
         "billing", "invoice", "download", "static", "assets", "media", "video", "weather",
         "recipes", "sports", "travel", "finance", "health", "science", "python", "tutorial"]
SAFE_TLDS = ["com", "org", "net", "edu", "gov", "io", "co.uk", "de", "fr"]
SHADY_TLDS = ["xyz", "top", "tk", "info", "club", "online", "site", "live", "icu", "ru"]
PHISH_WORDS = ["secure", "account", "verify", "login", "update", "confirm", "wallet", "unlock",
               "suspended", "billing", "webscr", "auth", "session", "recovery"]


def _token(rng, n, alphabet=string.ascii_lowercase + string.digits):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _benign(rng):
    scheme = "https" if rng.random() < 0.92 else "http"
    sub = rng.choice(["www", "www", "blog", "docs", "shop", "m", "en"])
    domain = rng.choice(BRANDS + WORDS[:20]).replace("-", "")
    host = f"{sub}.{domain}.{rng.choice(SAFE_TLDS)}"
    depth = rng.randint(1, 5)
    path = "/".join(rng.choice(WORDS) for _ in range(depth))
    if rng.random() < 0.3:
        path += f"/{rng.randint(1000, 99999)}.html"
    url = f"{scheme}://{host}/{path}"
    if rng.random() < 0.45:
        params = [f"{rng.choice(['q', 'page', 'ref', 'lang', 'id', 'utm_source'])}={_token(rng, rng.randint(2, 8))}"
                  for _ in range(rng.randint(1, 3))]
        url += "?" + "&".join(params)
    return url


def _phishing(rng):
    scheme = "http" if rng.random() < 0.55 else "https"
    brand = rng.choice(BRANDS)
    style = rng.random()
    if style < 0.15:
        host = ".".join(str(rng.randint(1, 254)) for _ in range(4))
    elif style < 0.55:
        parts = [brand, rng.choice(PHISH_WORDS), _token(rng, rng.randint(4, 10))]
        host = "-".join(parts) + "." + rng.choice(SHADY_TLDS + SAFE_TLDS[:2])
    else:
        subs = [rng.choice(PHISH_WORDS), brand, rng.choice(["com", "auth", "id"]), _token(rng, 6)]
        host = ".".join(subs[:rng.randint(2, 4)]) + "." + _token(rng, rng.randint(5, 9)) + "." + rng.choice(SHADY_TLDS)
    if rng.random() < 0.1:
        host = f"{brand}.com@{host}"
    path = "/".join([rng.choice(PHISH_WORDS), _token(rng, rng.randint(8, 24), string.ascii_letters + string.digits)]
                    + [rng.choice(WORDS) for _ in range(rng.randint(0, 2))])
    if rng.random() < 0.4:
        path += rng.choice([".php", ".html", "/index.php", ".aspx"])
    url = f"{scheme}://{host}/{path}"
    if rng.random() < 0.6:
        params = [f"{rng.choice(['session', 'token', 'cmd', 'dispatch', 'redirect', 'email'])}="
                  f"{_token(rng, rng.randint(10, 32), string.ascii_letters + string.digits + '%-_')}"
                  for _ in range(rng.randint(1, 3))]
        url += "?" + "&".join(params)
    return url


def generate_urls(n, phishing_rate, label_noise, seed):
    rng = random.Random(seed)
    urls, labels = [], []
    for _ in range(n):
        is_phish = rng.random() < phishing_rate
        urls.append(_phishing(rng) if is_phish else _benign(rng))
        label = int(is_phish)
        if rng.random() < label_noise:
            label = 1 - label
        labels.append(label)
    return urls, labels
