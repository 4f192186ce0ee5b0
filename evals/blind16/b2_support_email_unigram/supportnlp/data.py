"""Synthetic support mailbox, the map-style dataset and an HF-style padding collator."""
import random

import torch
from torch.utils.data import Dataset

from .cleaning import clean_email

FIRST = ["Jane", "Omar", "Li", "Priya", "Tomasz", "Ana", "Kwame", "Sofia", "Lukas", "Mei", "Diego", "Hannah"]
LAST = ["Doe", "Haddad", "Wei", "Sharma", "Nowak", "Silva", "Mensah", "Rossi", "Becker", "Tanaka", "Lopez"]
STREETS = ["Maple Street", "Oak Avenue", "High Road", "Elm Lane", "Sunset Blvd", "Cedar Drive", "Mill Road"]
INTENTS = {
    0: ["I would like a refund for order {order}", "the item arrived broken and I want my money back",
        "please cancel and refund the charge of {amount}", "I was charged twice for the same subscription"],
    1: ["my package has not arrived yet", "the tracking page at {url} has not updated in days",
        "can you ship to {street} instead", "the courier left the parcel at the wrong address"],
    2: ["I cannot log in to my account", "the password reset mail never reaches {mail}",
        "please update the e-mail on my profile", "two-factor codes are not working on my phone"],
    3: ["the app crashes when I open the settings page", "syncing fails with error code {code}",
        "the dashboard at {url} shows a blank screen", "exporting reports times out after a minute"],
    4: ["do you offer discounts for nonprofits", "what are the differences between the plans",
        "can I upgrade in the middle of a billing cycle", "is there an invoice option for teams"],
}
FILLER = ["I have tried this several times already", "this is quite urgent for our team",
          "it worked fine until last week", "I attached a screenshot to this message",
          "we have been customers for years", "let me know if you need more details",
          "the same happens on my laptop and on my tablet", "your documentation did not help",
          "honestly I am getting frustrated", "my colleague reported the same problem yesterday"]
SIGNOFFS = ["Thanks,", "Best regards,", "Cheers,", "Kind regards,", "Thank you!", "Regards,"]


def _fill(rng, template):
    return template.format(
        order=f"#{rng.choice('ABCDEFGH')}{rng.randint(10000, 99999)}",
        amount=f"${rng.randint(5, 400)}.{rng.randint(0, 99):02d}",
        url=f"https://{rng.choice(['shop', 'app', 'status'])}.example.com/{rng.choice(['orders', 'track', 'u'])}"
            f"/{rng.randint(1000, 999999)}?ref=mail&id={rng.randint(1, 10**6)}",
        street=f"{rng.randint(1, 9999)} {rng.choice(STREETS)}",
        mail=f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}{rng.randint(1, 99)}@example.org",
        code=f"E{rng.randint(100, 999)}-{rng.randint(0, 9)}",
    )


def _paragraph(rng, intent, n):
    sents = [_fill(rng, rng.choice(INTENTS[intent])) if rng.random() < 0.45 else rng.choice(FILLER)
             for _ in range(n)]
    return " ".join(s[0].upper() + s[1:] + rng.choice([".", ".", "!", "?"]) for s in sents)


def generate_mailbox(n, seed):
    rng = random.Random(seed)
    mails = []
    for _ in range(n):
        intent = rng.randrange(len(INTENTS))
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        paras = [_paragraph(rng, intent, rng.randint(4, 9)) for _ in range(rng.randint(2, 5))]
        body = f"{rng.choice(['Hi', 'Hello', 'Dear'])} {rng.choice(['support', 'team', 'there'])},\n\n" + \
            "\n\n".join(paras)
        body += f"\n\n{rng.choice(SIGNOFFS)}\n{name}\n"
        if rng.random() < 0.6:
            body += f"-- \n{name} | {rng.choice(['Buyer', 'CTO', 'Office Manager'])}\n" \
                    f"{rng.randint(1, 9999)} {rng.choice(STREETS)}, Springfield\n+1 555 {rng.randint(1000, 9999)}\n"
        if rng.random() < 0.7:
            quoted = _paragraph(rng, rng.randrange(len(INTENTS)), rng.randint(3, 8))
            body += f"\nOn Tue, Mar {rng.randint(1, 28)}, 2026 at {rng.randint(1, 12)}:{rng.randint(0, 59):02d} PM " \
                    f"Support <support@example.com> wrote:\n" + "\n".join("> " + quoted[i:i + 72]
                                                                         for i in range(0, len(quoted), 72))
        mails.append({"id": f"msg-{len(mails):05d}", "raw": body.replace("\n", "\r\n"), "label": intent})
    return mails


class SupportEmailDataset(Dataset):
    def __init__(self, mails, tokenizer, max_length, mask_prob, generator):
        self.mails = mails
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.mask_prob = mask_prob
        self.generator = generator

    def __len__(self):
        return len(self.mails)

    def __getitem__(self, idx):
        mail = self.mails[idx]
        ids = self.tokenizer.encode(clean_email(mail["raw"]))
        if len(ids) > self.max_length:
            start = int(torch.randint(0, len(ids) - self.max_length + 1, (1,), generator=self.generator))
            ids = ids[start:start + self.max_length]
        drop = torch.rand(len(ids), generator=self.generator) < self.mask_prob
        ids = [self.tokenizer.mask_id if d else t for t, d in zip(ids, drop.tolist())]
        return {"input_ids": ids, "labels": mail["label"]}


class DataCollatorWithPadding:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, features):
        width = max(len(f["input_ids"]) for f in features)
        input_ids = torch.full((len(features), width), self.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(features), width), dtype=torch.long)
        for row, f in enumerate(features):
            n = len(f["input_ids"])
            input_ids[row, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            attention_mask[row, :n] = 1
        labels = torch.tensor([f["labels"] for f in features], dtype=torch.long)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
