"""torchvision-style transforms for dict samples {"dn", "label", ...}."""
import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class ToReflectance:
    """L2A digital numbers -> surface reflectance (BOA_ADD_OFFSET = 0 for this product)."""

    def __init__(self, scale=10000.0):
        self.scale = scale

    def __call__(self, sample):
        sample["refl"] = sample.pop("dn").astype(np.float32) / np.float32(self.scale)
        return sample


class CloudShadowMask:
    """Rule-based cloud / cloud-shadow mask in the spirit of Fmask / s2cloudless QA.

    cloud:  bright in blue, white in the visible, positive haze-optimised transform;
            isolated cloud pixels are dropped, the rest buffered by `buffer` pixels.
    shadow: dark in NIR, not water, with a cloud pixel up-sun within `max_shadow_shift`.
    water / snow: Fmask's spectral water and snow tests.
    Writes sample["qa"] (uint8 HxW: 0 clear, 1 cloud, 2 shadow, 3 water, 4 snow).
    """

    CLEAR, CLOUD, SHADOW, WATER, SNOW = 0, 1, 2, 3, 4

    def __init__(self, blue_threshold=0.18, whiteness_threshold=0.7, hot_offset=0.08,
                 min_cloud_neighbours=3, nir_dark=0.13, sun_azimuth_step=(1, 1),
                 max_shadow_shift=6, buffer=1):
        self.blue_threshold = blue_threshold
        self.whiteness_threshold = whiteness_threshold
        self.hot_offset = hot_offset
        self.min_cloud_neighbours = min_cloud_neighbours
        self.nir_dark = nir_dark
        self.sun_step = tuple(sun_azimuth_step)
        self.max_shadow_shift = max_shadow_shift
        self.buffer = buffer

    def _pixel_tests(self, b, g, r, n, s1, s2):
        """Fmask spectral tests of one pixel -> (potential cloud, water, snow).

        Potential cloud: basic, whiteness, HOT, NIR/SWIR1 ratio and brightness tests all pass.
        """
        ndsi = (g - s1) / (g + s1)
        ndvi = (n - r) / (n + r)
        water = (ndvi < 0.01 and n < 0.11) or (0.0 < ndvi < 0.1 and n < 0.05)
        snow = ndsi > 0.15 and n > 0.11 and g > 0.1
        basic = ndsi < 0.8 and ndvi < 0.8 and s2 > 0.03
        mean_vis = (b + g + r) / 3.0
        whiteness = (abs(b - mean_vis) + abs(g - mean_vis) + abs(r - mean_vis)) / mean_vis
        white = whiteness < self.whiteness_threshold
        hot = b - 0.5 * r - self.hot_offset > 0.0
        ratio = n / s1 > 0.75
        bright = b >= self.blue_threshold
        return (basic and white and hot and ratio and bright), water, snow

    def __call__(self, sample):
        blue, green, red, nir, swir1, swir2 = (band.tolist() for band in sample["refl"])
        H, W = len(blue), len(blue[0])
        tests = [[self._pixel_tests(blue[y][x], green[y][x], red[y][x], nir[y][x], swir1[y][x], swir2[y][x])
                  for x in range(W)] for y in range(H)]
        raw = [[t[0] for t in row] for row in tests]

        # despeckle: a cloud pixel needs enough cloudy 8-neighbours
        cloud = [[False] * W for _ in range(H)]
        for y in range(H):
            for x in range(W):
                if not raw[y][x]:
                    continue
                n = 0
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        if dy == 0 and dx == 0:
                            continue
                        yy, xx = y + dy, x + dx
                        if 0 <= yy < H and 0 <= xx < W and raw[yy][xx]:
                            n += 1
                cloud[y][x] = n >= self.min_cloud_neighbours

        # buffer the clouds
        if self.buffer:
            b = self.buffer
            buffered = [row[:] for row in cloud]
            for y in range(H):
                for x in range(W):
                    if cloud[y][x]:
                        for yy in range(max(0, y - b), min(H, y + b + 1)):
                            for xx in range(max(0, x - b), min(W, x + b + 1)):
                                buffered[yy][xx] = True
            cloud = buffered

        # shadows: walk up-sun until a cloud is found or the tile ends
        sy, sx = self.sun_step
        qa = [[self.CLEAR] * W for _ in range(H)]
        for y in range(H):
            for x in range(W):
                if cloud[y][x]:
                    qa[y][x] = self.CLOUD
                    continue
                _, water, snow = tests[y][x]
                if snow:
                    qa[y][x] = self.SNOW
                elif water:
                    qa[y][x] = self.WATER
                n, g = nir[y][x], green[y][x]
                if n >= self.nir_dark:
                    continue
                if (g - n) / (g + n) > 0.0:  # NDWI > 0: water, dark in NIR as well
                    continue
                k = 1
                while k <= self.max_shadow_shift:
                    yy, xx = y - k * sy, x - k * sx
                    if yy < 0 or xx < 0 or yy >= H or xx >= W:
                        break
                    if cloud[yy][xx]:
                        qa[y][x] = self.SHADOW
                        break
                    k += 1
        sample["qa"] = np.array(qa, dtype=np.uint8)
        return sample


class SpectralIndices:
    """NDVI, NDWI (McFeeters) and NBR; zeroed under cloud and shadow."""

    def __init__(self, eps=1e-6):
        self.eps = np.float32(eps)

    def __call__(self, sample):
        blue, green, red, nir, swir1, swir2 = sample["refl"]
        ndvi = (nir - red) / (nir + red + self.eps)
        ndwi = (green - nir) / (green + nir + self.eps)
        nbr = (nir - swir2) / (nir + swir2 + self.eps)
        idx = np.stack([ndvi, ndwi, nbr])
        if "qa" in sample:
            qa = sample["qa"]
            idx[:, (qa == CloudShadowMask.CLOUD) | (qa == CloudShadowMask.SHADOW)] = 0.0
        sample["indices"] = idx
        return sample


class RandomDihedral:
    """Random 90-degree rotation + horizontal flip of every HxW array in the sample."""

    keys = ("refl", "indices", "qa")

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def __call__(self, sample):
        k = int(self.rng.integers(4))
        flip = self.rng.random() < 0.5
        for key in self.keys:
            if key in sample:
                arr = np.rot90(sample[key], k, axes=(-2, -1))
                if flip:
                    arr = arr[..., ::-1]
                sample[key] = np.ascontiguousarray(arr)
        return sample


class ToTensor:
    """Stack reflectance, indices and the one-hot QA (cloud, shadow, water, snow) into one float32 image."""

    def __call__(self, sample):
        qa = sample["qa"]
        image = np.concatenate([
            sample["refl"], sample["indices"],
            (qa == CloudShadowMask.CLOUD)[None].astype(np.float32),
            (qa == CloudShadowMask.SHADOW)[None].astype(np.float32),
            (qa == CloudShadowMask.WATER)[None].astype(np.float32),
            (qa == CloudShadowMask.SNOW)[None].astype(np.float32),
        ]).astype(np.float32)
        return {"image": torch.from_numpy(image), "qa": torch.from_numpy(qa),
                "label": sample["label"]}
