"""SymTax's taxonomy-fused reranker and its triplet training.

For a query q (citation context, citing title and abstract, citing categories) and a
candidate c (title and abstract, categories)::

    e_tr = LM([query text] [SEP] [candidate title + abstract])      mean-pooled, ℝ^D
    e_q, e_c = to_manifold(h_θ(fused(q))), to_manifold(h_θ(fused(c)))   ℝ^d, :mod:`.taxonomy_fusion`
    s = separation(e_q, e_c)                                        hyperbolic by default, :mod:`.geometry`
    R = σ(g_θ([e_tr ; s]))                                          g_θ: a feed-forward layer (or two)

trained with the triplet loss max(R(q, c⁻) − R(q, c⁺) + m, 0), m = 0.1, the positive being
the cited paper and the negatives drawn at random from the query's enriched candidates.
``taxonomy="none"`` drops s (the "− taxonomy" ablation); ``geometry`` swaps the
hyperbolic separation for the Euclidean or the spherical one.

**Fine-tuned or frozen LM.** SymTax fine-tunes the LM (``finetune=True``; learning rate
1e-5, weight decay 1e-2). With ``finetune=False`` the LM is a fixed feature extractor:
each (query, candidate) pair is encoded once, cached in a :class:`PairCache` shared by
every variant built on the same LM, and only h_θ, g_θ, the GNN and the unknown category
are trained — ablations then cost one LM pass over the pairs in all, which is what makes
them affordable on a CPU. :meth:`Reranker.freeze` turns a fine-tuned reranker into such a
feature extractor after its training, so that variants can share its fine-tuned LM.
Training is bounded by ``max_steps``; a GPU is used when present.

**Candidates without text** (``:External`` stubs the enrichment reaches) are read as an
empty candidate text, so the cross-encoder sees the query alone; the pipeline decides
whether they are kept at all (:mod:`.experiment`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from ..heavy import lazy, torch
from ..options import option
from ..retrieval.base import Ranking, rank
from .data import Context
from .encoding import DEVICE, NO_TEXT, Candidate, PairEncoder
from .geometry import GEOMETRIES, Geometry
from .taxonomy_fusion import FUSIONS, GNNS, Gnn, TaxonomyGraph

nets = lazy("citegraph.local.nets")  # SymTaxModel, TaxonomyFusion: torch is imported with them

Taxonomy = Literal["vector", "graph", "none"]


@dataclass(frozen=True)
class RerankerConfig:
    lm: str = "minilm"  # an encoder name of citegraph.retrieval.dense.encoders, or hf:<hub id or folder>
    taxonomy: Taxonomy = "vector"
    gnn: Gnn = "appnp"  # for taxonomy="graph"
    geometry: Geometry = "hyperbolic"
    finetune: bool = True  # fine-tune the LM (SymTax) or keep it frozen with cached pair vectors
    max_length: int = field(
        default=256,
        metadata=option(  # SymTax: 512
            "--max-length", "Tokens of a (query, candidate) pair."
        ),
    )
    proj_dim: int = field(
        default=64,
        metadata=option(  # SymTax: 512
            "--proj-dim", "Dimension of the taxonomy manifold."
        ),
    )
    hidden: int = 256  # g_θ's hidden units; 0 for a single linear layer
    margin: float = 0.1
    negatives: int = field(
        default=4, metadata=option("--negatives", "Negatives per positive, from the candidate list.")
    )
    batch_queries: int = 8  # queries per training step
    max_steps: int = 200
    lr_lm: float = 1e-5
    wd_lm: float = 1e-2
    lr_head: float = 1e-3
    wd_head: float = 1e-5
    batch_size: int = 32  # pairs per LM pass when scoring
    seed: int = 12  # SymTax's seed
    device: str | None = field(default=None, metadata=DEVICE)  # None: cuda when available, else cpu

    def __post_init__(self) -> None:
        if self.taxonomy not in (*FUSIONS, "none"):
            raise ValueError(f"taxonomy must be vector, graph or none, not {self.taxonomy!r}")
        if self.gnn not in GNNS:
            raise ValueError(f"gnn must be one of {', '.join(GNNS)}, not {self.gnn!r}")
        if self.geometry not in GEOMETRIES:
            raise ValueError(f"geometry must be one of {', '.join(GEOMETRIES)}, not {self.geometry!r}")


@dataclass(frozen=True, slots=True)
class Example:
    """A training query: the context and its enriched candidate list (negatives come from it)."""

    context: Context
    candidates: tuple[str, ...]


Triplets = list[tuple[Context, str, list[str]]]  # (query, positive, negatives)


class PairCache:
    """Frozen-LM pair vectors by (context id, candidate text), computed on demand and kept.

    Keyed by the candidate's text, not its id, so that candidates without text (the
    ``:External`` stubs enrichment reaches) cost one LM pass per query, not one each.
    """

    def __init__(self, encoder: PairEncoder, batch_size: int = 64):
        self.encoder, self.batch_size = encoder, batch_size
        self.vectors: dict[tuple[str, str], np.ndarray] = {}
        self.encoded = 0  # pairs run through the LM

    def get(self, pairs: Sequence[tuple[Context, str]], corpus: Mapping[str, Candidate]) -> np.ndarray:
        keys = [(c.id, corpus.get(p, NO_TEXT).text) for c, p in pairs]
        missing = list(dict.fromkeys(k for k in keys if k not in self.vectors))
        if missing:
            text = {c.id: c.query_text for c, _ in pairs}
            vectors = self.encoder.embed([text[q] for q, _ in missing], [t for _, t in missing], self.batch_size)
            self.vectors.update(zip(missing, vectors))
            self.encoded += len(missing)
        return np.stack([self.vectors[k] for k in keys]) if keys else np.zeros((0, self.encoder.dim), np.float32)


# -- the model ----------------------------------------------------------------------------------
class Reranker:
    """A SymTax reranker: its LM (own copy when fine-tuned, shared cache when frozen) and heads."""

    def __init__(
        self,
        config: RerankerConfig,
        encoder: PairEncoder,
        corpus: Mapping[str, Candidate],
        taxonomy: TaxonomyGraph | None = None,
        cache: PairCache | None = None,
    ):
        if config.taxonomy != "none" and taxonomy is None:
            raise ValueError("a taxonomy-fused reranker needs the taxonomy graph (taxonomy.load_taxonomy)")
        torch.manual_seed(config.seed)
        self.config = config
        self.corpus = corpus
        self.encoder = encoder.copy() if config.finetune else encoder
        self.cache = None if config.finetune else (cache or PairCache(encoder))
        fusion = None
        if config.taxonomy != "none" and taxonomy is not None:  # (checked above: one goes with the other)
            fusion = nets.TaxonomyFusion(taxonomy, lambda texts: encoder.embed(texts), config.taxonomy, config.gnn)
        self.model = nets.SymTaxModel(encoder.dim, fusion, config.geometry, config.proj_dim, config.hidden)
        self.model.to(encoder.device)
        groups = [{"params": list(self.model.parameters()), "lr": config.lr_head, "weight_decay": config.wd_head}]
        if config.finetune:
            groups.append(
                {"params": list(self.encoder.model.parameters()), "lr": config.lr_lm, "weight_decay": config.wd_lm}
            )
        self.optimizer = torch.optim.AdamW(groups)
        self.steps = 0
        self.losses: list[float] = []

    # -- scores ----------------------------------------------------------------------------
    def _rows(self, categories: Sequence[str]) -> list[int]:
        return self.model.taxonomy.index(categories) if self.model.taxonomy is not None else []

    def _e_tr(self, pairs: Sequence[tuple[Context, str]]):
        if self.cache is not None:
            return torch.from_numpy(self.cache.get(pairs, self.corpus)).to(self.encoder.device)
        return self.encoder.pairs(
            [c.query_text for c, _ in pairs], [self.corpus.get(p, NO_TEXT).text for _, p in pairs]
        )

    def scores(self, pairs: Sequence[tuple[Context, str]], table=None):
        """R for each (context, candidate id) pair, as a tensor (with gradients in training)."""
        e_tr = self._e_tr(pairs)
        query_rows = [self._rows(c.categories) for c, _ in pairs]
        candidate_rows = [self._rows(self.corpus.get(p, NO_TEXT).categories) for _, p in pairs]
        return self.model(e_tr, query_rows, candidate_rows, table)

    def rank(
        self,
        contexts: Sequence[Context],
        candidates: Sequence[Sequence[str]],
        k: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Ranking]:
        """Each context's candidates by R, best first (ties by id)."""
        self._eval()
        rankings = []
        with torch.inference_mode():
            # the fused category table does not change while ranking: the GNN runs once, not per batch
            table = self.model.taxonomy.categories() if self.model.taxonomy is not None else None
            for n, (context, ids) in enumerate(zip(contexts, candidates), start=1):
                ids = list(dict.fromkeys(ids))
                values: list[float] = []
                for start in range(0, len(ids), self.config.batch_size):
                    part = ids[start : start + self.config.batch_size]
                    values.extend(self.scores([(context, p) for p in part], table).float().cpu().tolist())
                rankings.append(rank(dict(zip(ids, values)), k or len(ids)))
                if progress:
                    progress(n, len(contexts))
        return rankings

    # -- training ----------------------------------------------------------------------------
    def sample(self, examples: Sequence[Example], rng: np.random.Generator) -> Triplets:
        """One positive and up to ``negatives`` random negatives (from the enriched list) per example."""
        triplets = []
        for example in examples:
            positives = list(example.context.cited)
            pool = [c for c in example.candidates if c not in set(positives)]
            if not pool:
                continue
            positive = positives[int(rng.integers(len(positives)))]
            chosen = rng.choice(len(pool), size=min(self.config.negatives, len(pool)), replace=False)
            triplets.append((example.context, positive, [pool[i] for i in sorted(chosen)]))
        return triplets

    def loss(self, triplets: Triplets):
        """Mean triplet loss max(R(q, c⁻) − R(q, c⁺) + m, 0) over every (positive, negative)."""
        pairs: list[tuple[Context, str]] = []
        positive, negative = [], []
        for context, pos, negs in triplets:
            p = len(pairs)
            pairs.append((context, pos))
            for neg in negs:
                positive.append(p)
                negative.append(len(pairs))
                pairs.append((context, neg))
        if not positive:
            return torch.zeros((), requires_grad=True)
        r = self.scores(pairs)
        return torch.relu(r[negative] - r[positive] + self.config.margin).mean()

    def step(self, triplets: Triplets) -> float:
        """One optimiser step on ``triplets``; the loss before it."""
        self._train()
        self.optimizer.zero_grad()
        loss = self.loss(triplets)
        if loss.requires_grad and loss.grad_fn is not None:
            loss.backward()
            self.optimizer.step()
        self.steps += 1
        value = float(loss.detach())
        self.losses.append(value)
        return value

    def train(
        self, examples: Sequence[Example], max_steps: int | None = None, log: Callable[[str], None] | None = None
    ) -> list[float]:
        """Up to ``max_steps`` steps of ``batch_queries`` examples each, cycling through shuffled examples."""
        steps = self.config.max_steps if max_steps is None else max_steps
        usable = [e for e in examples if any(c not in e.context.cited for c in e.candidates)]
        if not usable or steps <= 0:
            return []
        rng = np.random.default_rng(self.config.seed)
        order, position = rng.permutation(len(usable)), 0
        losses = []
        for step in range(steps):
            batch: list[Example] = []
            while len(batch) < min(self.config.batch_queries, len(usable)):
                if position == len(order):
                    order, position = rng.permutation(len(usable)), 0
                batch.append(usable[order[position]])
                position += 1
            losses.append(self.step(self.sample(batch, rng)))
            if log and (step + 1) % max(1, steps // 10) == 0:
                recent = losses[-max(1, steps // 10) :]
                log(f"step {step + 1}/{steps}: loss {sum(recent) / len(recent):.4f}")
        return losses

    def freeze(self) -> PairCache:
        """Stop fine-tuning the LM: from now on its pair vectors are cached, in the returned
        cache, which rerankers built on this (fine-tuned) LM share (``lm_mode="shared"``)."""
        self.cache = PairCache(self.encoder, self.config.batch_size)
        self.encoder.model.eval()
        return self.cache

    def _train(self) -> None:
        self.model.train()
        if self.config.finetune:
            self.encoder.model.train()

    def _eval(self) -> None:
        self.model.eval()
        self.encoder.model.eval()

    def describe(self) -> dict[str, Any]:
        return {
            **asdict(self.config),
            "steps": self.steps,
            "final_loss": None if not self.losses else float(np.mean(self.losses[-10:])),
        }
