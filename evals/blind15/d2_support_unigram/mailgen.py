"""Synthetic customer-support mailbox: raw RFC-822-ish bodies with quoted replies, signatures,
links, addresses and phone numbers, the way a helpdesk export hands them over."""
import random

CATEGORIES = ["billing", "shipping", "technical", "account", "refund"]

TOPIC_WORDS = {
    "billing": "invoice charged twice subscription payment card statement billing cycle overcharged prorated "
               "receipt tax amount renewal plan upgrade downgrade".split(),
    "shipping": "package delivery tracking courier shipment delayed warehouse dispatched parcel address "
                "arrived damaged carrier label customs estimated".split(),
    "technical": "error crash login app update installation firmware bluetooth sync timeout reinstall "
                 "browser cache screen freezes settings connection".split(),
    "account": "password reset username email verification locked account profile two-factor security "
               "deactivate settings privacy permissions access".split(),
    "refund": "refund return policy money back cancel order store credit exchange reimbursement defective "
              "warranty replacement processing days".split(),
}
COMMON = ("hi hello thanks please could you help me with my the a an and i have been trying to get "
          "this it is not working since last week yesterday order number again still waiting for any "
          "update on when will be resolved appreciate your quick response regarding issue problem "
          "we our team customer support ticket can someone look into as soon possible").split()
FIRST = "james mary robert patricia john jennifer michael linda david elizabeth aisha chen olga raj".split()
LAST = "smith johnson williams brown jones garcia miller davis martinez nguyen kowalski okafor".split()
STREETS = "main oak pine maple cedar elm washington lake hill park".split()
CITIES = [("Springfield", "IL"), ("Portland", "OR"), ("Austin", "TX"), ("Madison", "WI"), ("Denver", "CO")]
DOMAINS = ["gmail.com", "outlook.com", "acme-corp.com", "yahoo.com", "fastmail.fm"]
DAYS = "Mon Tue Wed Thu Fri Sat Sun".split()
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def _sentence(rng, topic):
    n = rng.randint(6, 16)
    words = [rng.choice(TOPIC_WORDS[topic]) if rng.random() < 0.35 else rng.choice(COMMON) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", ".", "?", "!"])


def _address(rng):
    city, state = rng.choice(CITIES)
    return (f"{rng.randint(10, 9999)} {rng.choice(STREETS).capitalize()} "
            f"{rng.choice(['St', 'Ave', 'Rd', 'Blvd'])}, {city}, {state} {rng.randint(10000, 99999)}")


def _extras(rng):
    kind = rng.random()
    if kind < 0.3:
        return f"See https://{rng.choice(['help', 'www', 'status'])}.acme.com/{rng.choice(['orders', 'kb', 'account'])}/{rng.randint(1000, 99999)}?ref=mail"
    if kind < 0.55:
        return f"Ship to {_address(rng)} please."
    if kind < 0.75:
        return f"You can reach me at {rng.choice(FIRST)}.{rng.choice(LAST)}@{rng.choice(DOMAINS)} or +1 ({rng.randint(200, 989)}) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}."
    return f"Order #{rng.randint(100000, 999999)} placed on {rng.randint(1, 28)}/{rng.randint(1, 12)}/2024."


def _body(rng, topic, n_par):
    pars = []
    for _ in range(n_par):
        sents = [_sentence(rng, topic) for _ in range(rng.randint(2, 5))]
        if rng.random() < 0.6:
            sents.insert(rng.randrange(len(sents) + 1), _extras(rng))
        pars.append(" ".join(sents))
    return "\n\n".join(pars)


def _signature(rng, name):
    style = rng.random()
    if style < 0.4:
        return f"\n\n-- \n{name}\n{rng.choice(['Office Manager', 'CTO', 'Customer', 'Owner'])}\n{_address(rng)}\nTel: +1 {rng.randint(200, 989)} {rng.randint(200, 989)} {rng.randint(1000, 9999)}"
    if style < 0.8:
        return f"\n\n{rng.choice(['Best regards,', 'Thanks,', 'Kind regards,', 'Cheers,'])}\n{name}"
    return f"\n\nSent from my iPhone"


def make_email(rng):
    topic = rng.choice(CATEGORIES)
    name = f"{rng.choice(FIRST).capitalize()} {rng.choice(LAST).capitalize()}"
    text = f"{rng.choice(['Hi', 'Hello', 'Dear support'])},\n\n" + _body(rng, topic, rng.randint(2, 5))
    text += _signature(rng, name)
    depth = rng.randint(0, 2)
    for _ in range(depth):
        agent = rng.choice(FIRST).capitalize()
        quoted = f"Hi {name.split()[0]},\n\n" + _body(rng, rng.choice(CATEGORIES), rng.randint(1, 3)) + f"\n\n{agent}\nAcme Support"
        if rng.random() < 0.5:
            header = (f"On {rng.choice(DAYS)}, {rng.choice(MONTHS)} {rng.randint(1, 28)}, 2024 at "
                      f"{rng.randint(1, 12)}:{rng.randint(0, 59):02d} {rng.choice(['AM', 'PM'])} {agent} "
                      f"<support@acme.com> wrote:")
            text += "\n\n" + header + "\n" + "\n".join("> " + line if line else ">" for line in quoted.split("\n"))
        else:
            text += "\n\n-----Original Message-----\nFrom: support@acme.com\nSubject: Re: your ticket\n\n" + quoted
    return text.replace("\n", "\r\n") if rng.random() < 0.3 else text, CATEGORIES.index(topic)
