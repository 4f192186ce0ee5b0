import torch
import torch.nn as nn
import torch.nn.functional as F


class ProdLDA(nn.Module):
    """Srivastava & Sutton (2017): logistic-normal VAE with a product-of-experts decoder."""

    def __init__(self, vocab_size, n_topics, hidden, dropout):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(vocab_size, hidden), nn.Softplus(),
                                     nn.Linear(hidden, hidden), nn.Softplus(), nn.Dropout(dropout))
        self.mu = nn.Linear(hidden, n_topics)
        self.logvar = nn.Linear(hidden, n_topics)
        self.drop_theta = nn.Dropout(dropout)
        self.beta = nn.Linear(n_topics, vocab_size, bias=False)
        self.bn = nn.BatchNorm1d(vocab_size, affine=False)
        # Laplace approximation of a Dirichlet(1/K) prior
        a = torch.full((n_topics,), 1.0 / n_topics)
        self.register_buffer("prior_mu", a.log() - a.log().mean())
        self.register_buffer("prior_var", (1 - 2 / n_topics) / a + (1 / a).sum() / n_topics ** 2)

    def forward(self, bow):
        h = self.encoder(bow)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        theta = self.drop_theta(F.softmax(z, dim=1))
        logp = F.log_softmax(self.bn(self.beta(theta)), dim=1)
        rec = -(bow * logp).sum(1)
        var = logvar.exp()
        kl = 0.5 * ((var / self.prior_var) + (mu - self.prior_mu) ** 2 / self.prior_var
                    - 1 + self.prior_var.log() - logvar).sum(1)
        return (rec + kl).mean()

    def topic_word(self):
        return self.beta.weight.detach().T  # (n_topics, vocab)
