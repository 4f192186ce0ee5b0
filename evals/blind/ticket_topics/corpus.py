import random

TOPICS = {
    "billing": "invoice charge refund card payment billed twice subscription price plan receipt",
    "login": "password login account locked reset email code two-factor sign signin username",
    "shipping": "package delivery courier tracking shipped late address parcel arrived lost",
    "bug": "crash error app freezes button broken update screen blank exception version",
    "feature": "feature request would love option dark mode export integration support add",
    "cancel": "cancel subscription close account stop renewal terminate delete leave downgrade",
    "hardware": "device battery charger cable screen cracked overheating speaker warranty repair",
    "privacy": "data privacy gdpr delete personal information consent tracking cookies policy",
}
FILLER = ("hi hello thanks please i my the a an is was it this that and but so can you help "
          "me with since yesterday today again still not working urgent asap regards team "
          "order number ticket customer").split()


def make_tickets(n, min_words, max_words, seed):
    rng = random.Random(seed)
    names = sorted(TOPICS)
    texts, labels = [], []
    for _ in range(n):
        k = rng.randrange(len(names))
        topic_words = TOPICS[names[k]].split()
        words = []
        for _ in range(rng.randint(min_words, max_words)):
            if rng.random() < 0.25:
                words.append(rng.choice(topic_words))
            else:
                words.append(rng.choice(FILLER))
        text = " ".join(words)
        text = text[0].upper() + text[1:] + rng.choice([".", "!", "?", "!!"])
        if rng.random() < 0.2:
            text += f" Order #{rng.randrange(10 ** 6):06d}."
        texts.append(text)
        labels.append(k)
    return texts, labels
