"""Tweet normalisation in the style of BERTweet / TweetNLP preprocessing."""
import html
import re

URL_RE = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
MENTION_RE = re.compile(r"(?<!\w)@\w{1,15}")
HASHTAG_RE = re.compile(r"#(\w+)")
CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
ELONG_RE = re.compile(r"(\w)\1{2,}")
REPEAT_PUNCT_RE = re.compile(r"([!?.])\1+")
SPACE_RE = re.compile(r"\s+")

EMOJI_NAMES = {
    "\U0001F602": "face_with_tears_of_joy", "\U0001F525": "fire", "\u2764": "red_heart",
    "\U0001F44D": "thumbs_up", "\U0001F62D": "loudly_crying_face", "\U0001F64F": "folded_hands",
    "\U0001F60D": "smiling_face_with_heart_eyes", "\U0001F914": "thinking_face",
    "\U0001F389": "party_popper",
}


def split_hashtag(tag):
    parts = CAMEL_RE.findall(tag)
    return " ".join(p.lower() for p in parts) if parts else tag.lower()


EMOJI_RE = re.compile("|".join(re.escape(e) for e in sorted(EMOJI_NAMES, key=len, reverse=True)))


def demojize(text):
    text = EMOJI_RE.sub(lambda m: f" :{EMOJI_NAMES[m.group(0)]}: ", text)
    return text.replace("\ufe0f", "")


def normalize_post(text):
    text = html.unescape(text)
    text = URL_RE.sub(" HTTPURL ", text)
    text = MENTION_RE.sub(" @USER ", text)
    text = HASHTAG_RE.sub(lambda m: " # " + split_hashtag(m.group(1)) + " ", text)
    text = demojize(text)
    text = ELONG_RE.sub(lambda m: m.group(1) * 3, text)
    text = REPEAT_PUNCT_RE.sub(r"\1\1", text)
    return SPACE_RE.sub(" ", text).strip()
