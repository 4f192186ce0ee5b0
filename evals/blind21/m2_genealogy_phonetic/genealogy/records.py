"""Synthetic transcribed census households: spelling variants, accents, stray punctuation."""
from dataclasses import dataclass, field
from typing import List

import numpy as np

_ONSETS = ["B", "Br", "C", "Ch", "D", "F", "G", "Gr", "H", "J", "K", "Kn", "L", "M", "N", "P", "Ph", "R",
           "S", "Sch", "Sh", "St", "T", "Th", "V", "W", "Wh", "Z"]
_NUCLEI = ["a", "e", "i", "o", "u", "ai", "ei", "ou", "ie", "ä", "ö", "ü", "y"]
_CODAS = ["", "n", "r", "l", "s", "t", "ck", "gh", "dt", "mm", "tz", "ng", "rs", "ld", "ch", "x"]
_SUFFIXES = ["", "son", "sen", "mann", "er", "ing", "ley", "ton", "berg", "ski", "ez", "ini", "ova"]


@dataclass
class Person:
    surname: str
    given: List[str]
    role: str


@dataclass
class Household:
    region: int
    persons: List[Person] = field(default_factory=list)


def _syllable(rng):
    return _ONSETS[rng.integers(len(_ONSETS))] + _NUCLEI[rng.integers(len(_NUCLEI))] + _CODAS[rng.integers(len(_CODAS))]


def _variant(name, rng):
    """A plausible transcription variant of `name`."""
    chars = list(name)
    kind = int(rng.integers(6))
    if kind == 0 and len(chars) > 3:  # doubled letter
        j = int(rng.integers(1, len(chars)))
        chars.insert(j, chars[j])
    elif kind == 1:  # vowel swap
        vowels = [j for j, c in enumerate(chars) if c in "aeiouy"]
        if vowels:
            chars[vowels[int(rng.integers(len(vowels)))]] = "aeiouy"[int(rng.integers(6))]
    elif kind == 2:
        return " " + name.upper() + "."
    elif kind == 3:
        return name.replace("ph", "f").replace("ck", "k").replace("ä", "ae").replace("ü", "ue")
    elif kind == 4:
        return name.lower() + "?"
    return "".join(chars)


class HouseholdGenerator:
    def __init__(self, num_regions=12, variants_per_name=6, seed=0):
        rng = np.random.default_rng(seed)
        self.num_regions = num_regions
        self.surnames = sorted({(_syllable(rng) + _syllable(rng).lower() + _SUFFIXES[rng.integers(len(_SUFFIXES))])
                                for _ in range(420)})
        self.given_names = sorted({(_syllable(rng) + _NUCLEI[rng.integers(len(_NUCLEI))]).capitalize()
                                   for _ in range(260)})
        self.surname_variants = [[s] + [_variant(s, rng) for _ in range(variants_per_name - 1)] for s in self.surnames]
        self.given_variants = [[g] + [_variant(g, rng) for _ in range(variants_per_name - 1)] for g in self.given_names]
        # each region prefers its own slice of the surname index
        weights = rng.gamma(0.35, size=(num_regions, len(self.surnames)))
        self.region_surname_p = weights / weights.sum(axis=1, keepdims=True)

    def _draw_surnames(self, regions, u):
        """Inverse-CDF draw of one surname index per entry of `regions` (uniforms `u`)."""
        cdf = np.cumsum(self.region_surname_p, axis=1)
        out = np.empty(len(regions), dtype=np.int64)
        for r in range(self.num_regions):
            rows = regions == r
            out[rows] = np.searchsorted(cdf[r], u[rows])
        return np.minimum(out, len(self.surnames) - 1)

    def households(self, count, persons_range, given_range, seed):
        rng = np.random.default_rng(seed)
        roles = ["head", "wife", "son", "daughter", "servant", "lodger"]
        n_var = len(self.surname_variants[0])
        regions = rng.integers(0, self.num_regions, size=count)
        n_persons = rng.integers(persons_range[0], persons_range[1] + 1, size=count)
        family = self._draw_surnames(regions, rng.random(count))
        person_region = np.repeat(regions, n_persons)
        rank = np.arange(n_persons.sum()) - np.repeat(np.cumsum(n_persons) - n_persons, n_persons)
        # the first four share the family surname, later members (servants, lodgers) half the time
        own = (rank < 4) | (rng.random(len(rank)) < 0.5)
        sidx = np.where(own, np.repeat(family, n_persons), self._draw_surnames(person_region, rng.random(len(rank))))
        svar = rng.integers(0, n_var, size=len(rank))
        n_given = rng.integers(given_range[0], given_range[1] + 1, size=len(rank))
        gidx = rng.integers(0, len(self.given_names), size=int(n_given.sum()))
        gvar = rng.integers(0, n_var, size=len(gidx))
        given_names = [self.given_variants[g][v] for g, v in zip(gidx.tolist(), gvar.tolist())]

        out = []
        p = g = 0
        sidx, svar, n_given, rank = sidx.tolist(), svar.tolist(), n_given.tolist(), rank.tolist()
        for region, n in zip(regions.tolist(), n_persons.tolist()):
            hh = Household(region=region)
            for _ in range(n):
                hh.persons.append(Person(surname=self.surname_variants[sidx[p]][svar[p]],
                                         given=given_names[g:g + n_given[p]],
                                         role=roles[min(rank[p], len(roles) - 1)]))
                g += n_given[p]
                p += 1
            out.append(hh)
        return out
