from .phonetic import metaphone, soundex


def phonetic_tokens(role, name, codes, metaphone_len):
    """One name -> its phonetic tokens, e.g. ('SUR', 'Schmidt') -> ['SUR:S:S530', 'SUR:M:SKMTT'[:6]]."""
    tokens = []
    for code in codes:
        if code == "soundex":
            tokens.append(f"{role}:S:{soundex(name)}")
        elif code == "metaphone":
            tokens.append(f"{role}:M:{metaphone(name, metaphone_len)}")
        else:
            raise ValueError(f"unknown phonetic code {code!r}")
    return tokens


class NameTokenizer:
    """Household -> input_ids: [HH] then, per person, surname and given-name phonetic tokens, then [SEP]."""

    def __init__(self, vocab, codes=("soundex", "metaphone"), metaphone_len=6, add_role_tokens=True):
        self.vocab = vocab
        self.codes = tuple(codes)
        self.metaphone_len = metaphone_len
        self.add_role_tokens = add_role_tokens

    def encode_person(self, person):
        ids = []
        for token in phonetic_tokens("SUR", person.surname, self.codes, self.metaphone_len):
            ids.append(self.vocab[token])
        for given in person.given:
            for token in phonetic_tokens("GIV", given, self.codes, self.metaphone_len):
                ids.append(self.vocab[token])
        return ids

    def __call__(self, household):
        input_ids = [self.vocab["[HH]"]]
        for person in household.persons:
            input_ids.extend(self.encode_person(person))
            if self.add_role_tokens:
                input_ids.append(self.vocab["[SEP]"])
        return {"input_ids": input_ids, "attention_mask": [1] * len(input_ids)}
