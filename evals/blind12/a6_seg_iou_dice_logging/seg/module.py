"""A LightningModule-shaped segmentation module and a minimal trainer driving its hooks."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from .metrics import class_dice, class_iou, nanmean


class TinyEncoderDecoder(nn.Module):
    """Output stride 4 features, one skip at stride 2, logits upsampled to the input size."""

    def __init__(self, num_classes, width):
        super().__init__()
        self.down1 = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.down2 = nn.Conv2d(width, 2 * width, 3, stride=2, padding=1)
        self.mid = nn.Conv2d(2 * width, width, 3, padding=1)
        self.head = nn.Conv2d(2 * width, num_classes, 1)

    def forward(self, x):
        d1 = F.relu(self.down1(x))                        # H/2
        d2 = F.relu(self.down2(d1))                       # H/4
        m = F.interpolate(F.relu(self.mid(d2)), scale_factor=2.0, mode="nearest")
        h = torch.cat([m, d1], dim=1)
        return F.interpolate(self.head(h), scale_factor=2.0, mode="bilinear", align_corners=False)


class SegmentationModule(nn.Module):
    def __init__(self, num_classes, ignore_index, width, lr):
        super().__init__()
        self.num_classes, self.ignore_index, self.lr = num_classes, ignore_index, lr
        self.net = TinyEncoderDecoder(num_classes, width)
        self.logged = []                     # one dict per step
        self.epoch_counts = None             # per class [intersection, union], summed over the epoch
        self.epoch_summaries = []

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def training_step(self, batch, batch_idx):
        images, masks = batch
        logits = self.net(images)
        loss = F.cross_entropy(logits, masks, ignore_index=self.ignore_index)
        return {"loss": loss, "preds": logits.detach().max(1).indices}

    def on_train_epoch_start(self):
        self.epoch_counts = [[0, 0] for _ in range(self.num_classes)]

    def on_train_batch_end(self, outputs, batch, batch_idx):
        _, masks = batch
        preds = outputs["preds"].tolist()
        targets = masks.tolist()
        ious = {c: [] for c in range(self.num_classes)}
        dices = {c: [] for c in range(self.num_classes)}
        batch_p, batch_t = [], []
        for pred_img, true_img in zip(preds, targets):
            flat_p = [v for row in pred_img for v in row]
            flat_t = [v for row in true_img for v in row]
            batch_p += flat_p
            batch_t += flat_t
            for c in range(self.num_classes):
                iou, inter, union = class_iou(flat_p, flat_t, c, self.ignore_index)
                self.epoch_counts[c][0] += inter
                self.epoch_counts[c][1] += union
                if iou is not None:
                    ious[c].append(iou)
                    dices[c].append(class_dice(flat_p, flat_t, c, self.ignore_index))
        # image-averaged scores (each image weighs the same) ...
        per_class_iou = [nanmean(ious[c]) for c in range(self.num_classes)]
        per_class_dice = [nanmean(dices[c]) for c in range(self.num_classes)]
        # ... and pooled scores (every pixel of the batch weighs the same)
        pooled_iou, pooled_dice = [], []
        for c in range(self.num_classes):
            iou, _, _ = class_iou(batch_p, batch_t, c, self.ignore_index)
            pooled_iou.append(float("nan") if iou is None else iou)
            dice = class_dice(batch_p, batch_t, c, self.ignore_index)
            pooled_dice.append(float("nan") if dice is None else dice)
        self.logged.append({"step_loss": float(outputs["loss"].detach()), "miou": nanmean(per_class_iou),
                            "mdice": nanmean(per_class_dice), "iou": per_class_iou, "dice": per_class_dice,
                            "pooled_miou": nanmean(pooled_iou), "pooled_mdice": nanmean(pooled_dice)})

    def on_train_epoch_end(self):
        ious = []
        for inter, union in self.epoch_counts:
            ious.append(inter / union if union else float("nan"))
        self.epoch_summaries.append({"epoch_iou": ious, "epoch_miou": nanmean(ious)})


class MiniTrainer:
    def __init__(self, max_epochs, meter, log_every):
        self.max_epochs, self.meter, self.log_every = max_epochs, meter, log_every
        self.global_step = 0

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            module.on_train_epoch_start()
            for batch_idx, batch in enumerate(loader):
                self.meter.batch(batch)
                out = module.training_step(batch, batch_idx)
                opt.zero_grad()
                out["loss"].backward()
                opt.step()
                module.on_train_batch_end(out, batch, batch_idx)
                self.meter.step(out["loss"])
                self.global_step += 1
                if self.global_step % self.log_every == 0:
                    last = module.logged[-1]
                    print(f"epoch {epoch} step {self.global_step} loss {last['step_loss']:.4f} "
                          f"mIoU {last['miou']:.4f} mDice {last['mdice']:.4f}", flush=True)
                if self.meter.done():
                    break
            module.on_train_epoch_end()
            if self.meter.done():
                break
