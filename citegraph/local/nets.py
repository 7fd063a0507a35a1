"""The torch modules of local recommendation, defined at module level (so that they can be
read, pickled and tested like any class): the taxonomy fusion of SymTax with its graph
networks, and the reranker's heads.

This module imports torch at its top; the modules that use it reach it through
:func:`citegraph.heavy.lazy`, so importing them costs nothing until a model is built.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from .geometry import Geometry, distance, to_manifold
from .taxonomy_fusion import FUSIONS, GNNS, Embed, Fusion, Gnn, TaxonomyGraph, adjacency, node_features, vector_fusion


class APPNP(nn.Module):
    """Predict then propagate: H₀ = X + MLP(X), H ← (1 − α)·D^{-½}(A+I)D^{-½}·H + α·H₀, K times."""

    propagation: torch.Tensor  # a buffer

    def __init__(self, dim: int, adjacency: torch.Tensor, steps: int = 10, alpha: float = 0.1):
        super().__init__()
        degree = adjacency.sum(1)
        norm = degree.rsqrt()
        self.register_buffer("propagation", norm[:, None] * adjacency * norm[None, :])
        first, last = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(first, nn.ReLU(), last)
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)
        self.steps, self.alpha = steps, alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h0 = x + self.mlp(x)
        h = h0
        for _ in range(self.steps):
            h = (1 - self.alpha) * self.propagation @ h + self.alpha * h0
        return h


class GATLayer(nn.Module):
    """Graph attention: α_ij = softmax_j LeakyReLU(aᵀ[W h_i ‖ W h_j]) over j ∈ N(i) ∪ {i}."""

    mask: torch.Tensor  # a buffer

    def __init__(self, dim_in: int, dim_out: int, heads: int, adjacency: torch.Tensor):
        super().__init__()
        self.heads, self.dim = heads, dim_out
        self.linear = nn.Linear(dim_in, heads * dim_out, bias=False)
        self.source = nn.Parameter(torch.empty(heads, dim_out))
        self.target = nn.Parameter(torch.empty(heads, dim_out))
        nn.init.xavier_uniform_(self.source)
        nn.init.xavier_uniform_(self.target)
        self.register_buffer("mask", adjacency > 0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.linear(x).view(-1, self.heads, self.dim)  # (n, heads, dim)
        scores = (h * self.target).sum(-1).T[:, :, None] + (h * self.source).sum(-1).T[:, None, :]
        scores = nn.functional.leaky_relu(scores, 0.2).masked_fill(~self.mask, float("-inf"))
        attention = scores.softmax(-1)  # (heads, n, n)
        return torch.einsum("hij,jhd->ihd", attention, h).mean(1)  # heads averaged


class GAT(nn.Module):
    """Two GAT layers with ELU between them and a residual to the input vectors."""

    def __init__(self, dim: int, adjacency: torch.Tensor, heads: int = 2):
        super().__init__()
        self.first = GATLayer(dim, dim, heads, adjacency)
        self.second = GATLayer(dim, dim, heads, adjacency)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.second(nn.functional.elu(self.first(x)))


class TaxonomyFusion(nn.Module):
    """The fused embedding of every category, and papers' embeddings from their categories."""

    table: torch.Tensor  # buffers: the category table (vector fusion), or the GNN's node features
    features: torch.Tensor

    def __init__(self, graph: TaxonomyGraph, embed: Embed, fusion: Fusion = "vector", gnn: Gnn = "appnp"):
        super().__init__()
        if fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}, not {fusion!r}")
        if gnn not in GNNS:
            raise ValueError(f"gnn must be one of {', '.join(GNNS)}, not {gnn!r}")
        self.fusion, self.n = fusion, len(graph.categories)
        self.rows = graph.row()
        if fusion == "vector":
            table = torch.from_numpy(vector_fusion(graph, embed))
            self.register_buffer("table", table)
            self.gnn = None
        else:
            features = torch.from_numpy(node_features(graph, embed))
            self.register_buffer("features", features)
            a = adjacency(graph)
            self.gnn = APPNP(features.shape[1], a) if gnn == "appnp" else GAT(features.shape[1], a)
            table = features[: self.n]
        self.dim = int(table.shape[1])
        self.unknown = nn.Parameter(table.mean(0).clone() if len(table) else torch.zeros(self.dim))

    def categories(self) -> torch.Tensor:
        """(categories, dim): the fused category table (recomputed by the GNN each call)."""
        if self.gnn is None:
            return self.table
        return self.gnn(self.features)[: self.n]

    def index(self, codes: Sequence[str]) -> list[int]:
        return [self.rows[c] for c in codes if c in self.rows]

    def papers(self, rows: Sequence[Sequence[int]], table: torch.Tensor | None = None) -> torch.Tensor:
        """(papers, dim): the mean of each paper's category rows, or the unknown embedding."""
        table = self.categories() if table is None else table
        if not any(rows):  # no paper has a category (e.g. ACL papers): all share the unknown one
            return self.unknown.expand(len(rows), self.dim)
        width = max((len(r) for r in rows), default=0) or 1
        device = table.device
        index = torch.zeros(len(rows), width, dtype=torch.long, device=device)
        mask = torch.zeros(len(rows), width, device=device)
        for i, r in enumerate(rows):
            if r:
                index[i, : len(r)] = torch.tensor(list(r), device=device)
                mask[i, : len(r)] = 1.0
        count = mask.sum(1, keepdim=True)
        mean = (table[index] * mask[..., None]).sum(1) / count.clamp_min(1.0)
        return torch.where(count > 0, mean, self.unknown.expand_as(mean))


class SymTaxModel(nn.Module):
    """Heads over e_tr: taxonomy fusion → h_θ → manifold → separation s; g_θ([e_tr; s]) → σ."""

    head: nn.Module

    def __init__(self, dim: int, taxonomy: TaxonomyFusion | None, geometry: Geometry, proj_dim: int, hidden: int):
        """``dim``: e_tr's; ``geometry``, ``proj_dim``, ``hidden`` as :class:`~.symtax.RerankerConfig` says."""
        super().__init__()
        self.taxonomy, self.geometry = taxonomy, geometry
        width = dim + (1 if taxonomy is not None else 0)
        if taxonomy is not None:
            self.projection = nn.Linear(taxonomy.dim, proj_dim)
        if hidden:
            self.head = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, 1))
        else:
            self.head = nn.Linear(width, 1)

    def separation(
        self,
        query_rows: Sequence[Sequence[int]],
        candidate_rows: Sequence[Sequence[int]],
        table: torch.Tensor | None = None,
    ):
        assert self.taxonomy is not None  # only a model with a taxonomy has a separation
        table = self.taxonomy.categories() if table is None else table
        e_q = to_manifold(self.projection(self.taxonomy.papers(query_rows, table)), self.geometry)
        e_c = to_manifold(self.projection(self.taxonomy.papers(candidate_rows, table)), self.geometry)
        return distance(e_q, e_c, self.geometry)

    def forward(self, e_tr: torch.Tensor, query_rows, candidate_rows, table=None) -> torch.Tensor:
        """R per pair; ``table``: the fused category table when already computed (ranking)."""
        features = e_tr
        if self.taxonomy is not None:
            s = self.separation(query_rows, candidate_rows, table)
            features = torch.cat([e_tr, s.unsqueeze(-1).to(e_tr.dtype)], dim=-1)
        return torch.sigmoid(self.head(features).squeeze(-1))
