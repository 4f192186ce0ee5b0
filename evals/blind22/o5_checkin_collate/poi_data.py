"""Synthetic location-based social network check-ins (Foursquare / Gowalla style)."""
import numpy as np
from torch.utils.data import Dataset

import geohash

CITY_LAT, CITY_LON = 40.73, -73.99  # city centre; places spread over ~20 km
T0 = 1_333_000_000  # April 2012


class PlaceCatalog:
    def __init__(self, num_places, precision, seed):
        rng = np.random.default_rng(seed)
        # clustered neighbourhoods
        centres = rng.normal(0.0, 0.06, size=(24, 2))
        which = rng.integers(0, len(centres), size=num_places)
        off = centres[which] + rng.normal(0.0, 0.012, size=(num_places, 2))
        self.lat = CITY_LAT + off[:, 0]
        self.lon = CITY_LON + off[:, 1]
        self.neighbourhood = which
        # id 0 is padding; real places are 1..num_places
        self.geohashes = [""] + [geohash.encode(a, o, precision) for a, o in zip(self.lat, self.lon)]
        self.num_places = num_places
        self.members = [np.flatnonzero(which == k) for k in range(len(centres))]


class CheckinSequences(Dataset):
    """User i's check-in history, generated from (seed, i). Items are plain lists, like rows read
    back from a JSON-lines dump."""

    def __init__(self, catalog, num_users, min_len, max_len, seed):
        self.catalog = catalog
        self.num_users = num_users
        self.min_len = min_len
        self.max_len = max_len
        self.seed = seed

    def __len__(self):
        return self.num_users

    def __getitem__(self, idx):
        rng = np.random.default_rng((self.seed, idx))
        cat = self.catalog
        n = int(rng.integers(self.min_len, self.max_len + 1))
        home = int(rng.integers(0, 24))
        favourites = cat.members[home]
        if len(favourites) == 0:
            favourites = np.arange(cat.num_places)
        explore = rng.random(n) < 0.3
        picks = np.where(explore, rng.integers(0, cat.num_places, size=n),
                         favourites[rng.integers(0, len(favourites), size=n)])
        place_ids = (picks + 1).tolist()
        gaps = rng.exponential(6.0 * 3600.0, size=n).astype(np.int64) + 60
        timestamps = (T0 + int(rng.integers(0, 86400 * 300)) + np.cumsum(gaps)).tolist()
        return {
            "user_id": idx,
            "place_ids": place_ids,
            "timestamps": timestamps,
            "geohashes": [cat.geohashes[p] for p in place_ids],
        }
