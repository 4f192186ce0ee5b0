"""Synthetic customer-support tickets for intent classification."""
import random

INTENTS = ["refund", "shipping_delay", "login_issue", "billing_error",
           "cancel_subscription", "damaged_item", "change_address", "product_question"]

_KEYWORDS = {
    "refund": ["refund", "money", "back", "return", "reimbursement", "credited"],
    "shipping_delay": ["package", "shipping", "delayed", "tracking", "courier", "arrive"],
    "login_issue": ["login", "password", "reset", "locked", "account", "two-factor"],
    "billing_error": ["charged", "twice", "invoice", "billing", "overcharged", "statement"],
    "cancel_subscription": ["cancel", "subscription", "renewal", "plan", "unsubscribe", "membership"],
    "damaged_item": ["broken", "damaged", "cracked", "scratched", "defective", "arrived"],
    "change_address": ["address", "move", "moved", "delivery", "update", "apartment"],
    "product_question": ["compatible", "warranty", "size", "battery", "specifications", "colour"],
}

_FILLER = ("hi hello thanks please i my the a an is was it this that order ordered "
           "yesterday today week ago still not can you help me with since we our "
           "asap urgent again already tried contacted support team customer service "
           "could would should really very quite just also but and or so because "
           "item product website app phone email received got have had been waiting").split()

_SYL = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "shu", "dra", "gle", "tor", "ven", "qui"]


def _product_names(rng, n):
    names = set()
    while len(names) < n:
        names.add("".join(rng.choice(_SYL) for _ in range(rng.randint(2, 4))))
    return sorted(names)


def make_tickets(n, min_words, max_words, num_intents, seed):
    rng = random.Random(seed)
    products = _product_names(rng, 60)
    intents = INTENTS[:num_intents]
    texts, labels = [], []
    for _ in range(n):
        label = rng.randrange(num_intents)
        kw = _KEYWORDS[intents[label]]
        # a little label noise: some keywords from another intent
        other = _KEYWORDS[intents[rng.randrange(num_intents)]]
        words = []
        for _ in range(rng.randint(min_words, max_words)):
            r = rng.random()
            if r < 0.22:
                words.append(rng.choice(kw))
            elif r < 0.28:
                words.append(rng.choice(other))
            elif r < 0.36:
                words.append(rng.choice(products).capitalize())
            elif r < 0.40:
                words.append(f"#{rng.randint(10000, 99999)}")
            elif r < 0.42:
                words.append(f"{rng.randint(1, 28)}/{rng.randint(1, 12)}")
            else:
                words.append(rng.choice(_FILLER))
        text = " ".join(words)
        if rng.random() < 0.5:
            text = text[0].upper() + text[1:] + rng.choice([".", "!", "?", "!!", "..."])
        texts.append(text)
        labels.append(label)
    return texts, labels
