"""Synthetic outdoor weather photographs (sky above a rough horizon line, textured ground below)."""
import numpy as np
from torch.utils.data import Dataset

# (sky top RGB, sky bottom RGB, sky noise std) per weather class
SKY_PALETTES = {
    "clear": ((60, 120, 225), (150, 190, 240), 3.0),
    "overcast": ((165, 170, 180), (195, 198, 205), 4.0),
    "rain": ((95, 100, 115), (125, 128, 138), 9.0),
    "fog": ((200, 202, 206), (215, 216, 218), 2.0),
}
GROUND = ((60, 85, 45), (110, 105, 80))


def render_scene(rng, height, width, weather):
    """Render one HxWx3 uint8 photo; returns the image and the true horizon row per column."""
    top, bottom, sky_std = SKY_PALETTES[weather]
    base = rng.uniform(0.3, 0.65) * height
    tilt = rng.uniform(-0.2, 0.2)
    cols = np.arange(width)
    bumps = 1.5 * np.sin(cols / rng.uniform(3.0, 9.0) + rng.uniform(0, 6.28))
    horizon = np.clip(np.round(base + tilt * (cols - width / 2) + bumps), 3, height - 3).astype(np.int64)

    rows = np.arange(height, dtype=np.float64)[:, None, None] / height
    sky = np.asarray(top, np.float64) * (1.0 - rows) + np.asarray(bottom, np.float64) * rows
    sky = sky + rng.normal(0.0, sky_std, (height, width, 3))
    ground_mix = rng.uniform(0.0, 1.0, (height, width, 1))
    ground = np.asarray(GROUND[0], np.float64) * (1 - ground_mix) + np.asarray(GROUND[1], np.float64) * ground_mix
    ground = ground + rng.normal(0.0, 14.0, (height, width, 3))

    is_sky = (np.arange(height)[:, None] < horizon[None, :])[..., None]
    img = np.where(is_sky, np.broadcast_to(sky, (height, width, 3)), ground)
    if weather == "fog":
        img = 0.6 * img + 0.4 * 205.0
    return np.clip(np.round(img), 0, 255).astype(np.uint8), horizon


class WeatherPhotos(Dataset):
    def __init__(self, num_images, height, width, classes, seed=0, transform=None):
        self.num_images = num_images
        self.height = height
        self.width = width
        self.classes = list(classes)
        self.seed = seed
        self.transform = transform

    def __len__(self):
        return self.num_images

    def __getitem__(self, index):
        rng = np.random.default_rng([self.seed, index])
        label = index % len(self.classes)
        image, horizon = render_scene(rng, self.height, self.width, self.classes[label])
        sample = {"image": image, "label": label, "true_horizon": horizon}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
