"""Per-step verification logged during training: ensemble CRPS and the rank histogram."""


def crps_ensemble(members, obs):
    """CRPS of one ensemble forecast (empirical CDF form) against one observation."""
    m = len(members)
    skill = 0.0
    for x in members:
        skill += abs(x - obs)
    spread = 0.0
    for x in members:
        for y in members:
            spread += abs(x - y)
    return skill / m - spread / (2 * m * m)


def rank_of(members, obs):
    return sum(1 for x in members if x < obs)


class VerificationLogger:
    def __init__(self, members, decimals):
        self.members = members
        self.decimals = decimals
        self.crps = []
        self.rank_hist = [0] * (members + 1)
        self.step_hists = []

    def on_step(self, ens, obs):
        """ens: (B, M, H, W) tensor, obs: (B, H, W) tensor."""
        b, m = ens.shape[0], ens.shape[1]
        e = ens.detach().reshape(b, m, -1).tolist()
        o = obs.detach().reshape(b, -1).tolist()
        total = 0.0
        hist = [0] * (m + 1)
        count = 0
        for i in range(b):
            for p in range(len(o[i])):
                members = [e[i][k][p] for k in range(m)]
                total += crps_ensemble(members, o[i][p])
                hist[rank_of(members, o[i][p])] += 1
                count += 1
        self.crps.append(round(total / count, self.decimals))
        self.step_hists.append(hist)
        for r, c in enumerate(hist):
            self.rank_hist[r] += c
        return self.crps[-1]

    def summary(self):
        return {"crps_per_step": self.crps, "rank_hist": self.rank_hist, "rank_hist_last": self.step_hists[-1]}
