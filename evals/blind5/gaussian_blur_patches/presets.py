import random

import transforms as T


class ClassificationPresetTrain:
    def __init__(self, aug, seed):
        rng = random.Random(seed)
        self.transforms = T.Compose([
            T.ToFloat(),
            T.RandomCrop(aug["crop_size"], rng),
            T.RandomFlip(aug["hflip_prob"], 1, rng),
            T.RandomFlip(aug["vflip_prob"], 0, rng),
            T.RandomGaussianBlur(aug["blur_kernel"], aug["blur_sigma"], aug["blur_prob"], rng),
            T.ToTensorNormalize(aug["mean"], aug["std"]),
        ])

    def __call__(self, img):
        return self.transforms(img)
