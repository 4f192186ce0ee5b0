"""A seeded stream of social-media posts (topic-labelled), in the raw shape an API export gives them."""
import random
import string

TOPICS = {
    "sports": "game team win season coach player goal match league fans score playoffs final striker "
              "defense stadium tonight referee transfer injury",
    "politics": "vote election senate policy debate president campaign bill congress tax reform governor "
                "poll law minister parliament protest rally",
    "tech": "app update release phone battery startup code model data cloud chip launch ai software "
            "bug feature beta laptop privacy",
    "food": "pizza recipe dinner coffee brunch tacos delicious restaurant chef cake spicy vegan "
            "breakfast sushi burger dessert noodles",
    "music": "album song concert tour band singer track playlist live guitar vinyl festival lyrics "
             "drummer remix chorus stage",
}
TOPIC_WORDS = {k: v.split() for k, v in TOPICS.items()}
COMMON = ("the a i you it this that is was so just my me and to of in for on with at be have not "
          "love like today really new time people best when what all out get can one day about more "
          "good great never ever still wow omg lol literally honestly finally again here").split()
FOREIGN = ["café", "niño", "straße", "über", "señor", "déjà", "naïve", "façade", "jalapeño", "smørrebrød"]
EMOJI = ["\U0001F602", "\U0001F525", "\u2764\ufe0f", "\U0001F44D", "\U0001F62D", "\U0001F64F",
         "\U0001F60D", "\U0001F914", "\U0001F389", "\U0001F4AF", "\U0001F680", "\U0001F37B"]
CAMEL = ["GameDay", "BreakingNews", "TechTalk", "FoodPorn", "NowPlaying", "VoteToday", "MondayMotivation",
         "ThrowbackThursday", "NewMusicFriday", "MatchDay", "AIRevolution", "BestDayEver"]


_CUM = {}


def _zipf_pick(rng, words, s=1.1):
    key = (id(words), len(words))
    cum = _CUM.get(key)
    if cum is None:
        cum, total = [], 0.0
        for r in range(len(words)):
            total += 1.0 / (r + 1) ** s
            cum.append(total)
        _CUM[key] = cum
    return rng.choices(words, cum_weights=cum)[0]


def _handle(rng):
    n = rng.randint(4, 11)
    return "".join(rng.choice(string.ascii_letters + string.digits + "_") for _ in range(n))


def _url(rng):
    code = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(10))
    return rng.choice(["https://t.co/", "http://bit.ly/", "https://www.example.com/p/"]) + code


def _elongate(rng, w):
    if len(w) > 2 and w[-1] in "aeiousy!":
        return w + w[-1] * rng.randint(2, 6)
    return w


def make_post(rng, topic_names):
    label = rng.randrange(len(topic_names))
    topic = TOPIC_WORDS[topic_names[label]]
    n = rng.randint(8, 34)
    words = []
    if rng.random() < 0.35:
        words.append("@" + _handle(rng))
    for _ in range(n):
        r = rng.random()
        if r < 0.38:
            w = _zipf_pick(rng, topic)
        elif r < 0.86:
            w = _zipf_pick(rng, COMMON)
        elif r < 0.89:
            w = rng.choice(FOREIGN)
        elif r < 0.92:
            w = str(rng.randint(0, 2030))
        elif r < 0.96:
            w = rng.choice(EMOJI) * rng.randint(1, 3)
        else:
            w = "@" + _handle(rng)
        if rng.random() < 0.08:
            w = _elongate(rng, w)
        if rng.random() < 0.1:
            w = w.capitalize() if rng.random() < 0.7 else w.upper()
        words.append(w)
    if rng.random() < 0.4:
        words.insert(rng.randint(0, len(words)), _url(rng))
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        tag = rng.choice(CAMEL) if rng.random() < 0.6 else _zipf_pick(rng, topic)
        words.append("#" + tag)
    text = " ".join(words)
    text = text.replace(" and ", rng.choice([" and ", " &amp; ", " & "]), 1)
    if rng.random() < 0.3:
        text += rng.choice(["!!", "!", "?!", "...", " :)", " :("])
    return {"id": rng.getrandbits(63), "text": text, "label": label}
