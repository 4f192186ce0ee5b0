"""Trainer callbacks: per-step crowd-counting metrics and a console logger."""
import math


class Callback:
    def on_train_start(self, trainer, module):
        pass

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pass

    def on_train_end(self, trainer, module):
        pass


class CrowdCountingMetrics(Callback):
    """MAE / RMSE of the image count per density bin, and the grid-cell count error, every step."""

    def __init__(self, bins, grid):
        self.bins = list(bins)
        self.bin_names = [f"{lo}-{hi}" for lo, hi in zip(self.bins, self.bins[1:])] + [f"{self.bins[-1]}+"]
        self.grid = grid
        self.history = []

    def bin_of(self, count):
        name = self.bin_names[0]
        for lo, bin_name in zip(self.bins, self.bin_names):
            if count >= lo:
                name = bin_name
        return name

    def cell_counts(self, density):
        """Sum of the density map over each of the grid x grid cells (row-major nested lists)."""
        h, w = len(density), len(density[0])
        ch, cw = h // self.grid, w // self.grid
        cells = [[0.0] * self.grid for _ in range(self.grid)]
        for y, row in enumerate(density):
            cy = min(y // ch, self.grid - 1)
            for x, value in enumerate(row):
                cells[cy][min(x // cw, self.grid - 1)] += value
        return cells

    @staticmethod
    def squared_error(pred, true):
        """Sum over pixels of (pred - true)^2 for one pair of maps (nested lists)."""
        total = 0.0
        for pred_row, true_row in zip(pred, true):
            for p, t in zip(pred_row, true_row):
                d = p - t
                total += d * d
        return total

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pred_maps = outputs["density"].detach().cpu().tolist()
        true_maps = batch["density"].tolist()

        errors = {name: [] for name in self.bin_names}
        cell_errors = []
        pixel_errors = []
        for pred, true in zip(pred_maps, true_maps):
            pixel_errors.append(self.squared_error(pred[0], true[0]))
            pred_cells = self.cell_counts(pred[0])
            true_cells = self.cell_counts(true[0])
            pred_count = sum(sum(row) for row in pred_cells)
            true_count = sum(sum(row) for row in true_cells)
            errors[self.bin_of(true_count)].append(pred_count - true_count)
            cell_errors.append(sum(abs(p - t) for pr, tr in zip(pred_cells, true_cells) for p, t in zip(pr, tr))
                               / (self.grid * self.grid))

        record = {"step": trainer.global_step}
        for name, errs in errors.items():
            if errs:
                record[f"mae/{name}"] = sum(abs(e) for e in errs) / len(errs)
                record[f"rmse/{name}"] = math.sqrt(sum(e * e for e in errs) / len(errs))
        record["grid_mae"] = sum(cell_errors) / len(cell_errors)
        record["density_mse"] = sum(pixel_errors) / (len(pixel_errors) * len(true_maps[0][0]) * len(true_maps[0][0][0]))
        self.history.append(record)
        trainer.log_dict(record)


class ConsoleLogger(Callback):
    def __init__(self, every):
        self.every = every

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if trainer.global_step % self.every == 0:
            shown = {k: round(v, 4) for k, v in trainer.logged_metrics.items() if k != "step"}
            print(f"step {trainer.global_step} loss {outputs['loss'].item():.4f} {shown}", flush=True)
