"""The learned rerankers of a local-recommendation run (stage 5 of :mod:`.experiment`).

:class:`Variants` trains one SymTax reranker (:mod:`.symtax`) per variant (bounded by
``max_steps``; its LM fine-tuned, shared or frozen as ``lm_mode`` says) and ranks each test
context's candidates with it; :func:`rerank` names the variants — the rows of SymTax's
Tables 3 and 4. :func:`biencoders` — the bi-encoder (:mod:`.biencoder`) untrained,
fine-tuned and fused with the first stage (its negatives need no enrichment, so only the
test contexts are enriched when SymTax is not run).

Cost (``lm_mode``, :mod:`.ablations`): a frozen or shared LM runs once over every (query,
candidate) pair that training samples or ranking needs, for all variants together; with
``finetune`` every variant fine-tunes and runs its own. On 2 CPU cores all-MiniLM-L6 reads
about 30 pairs of 128 tokens a second (fewer when the cores are shared), so a test context
with 300 candidates costs about 10 s per LM pass: bound ``max_test`` and ``max_steps``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from ..evaluation.harness import Log, quiet
from ..retrieval.base import Ranking, rank
from ..retrieval.fusion import ReciprocalRankFusion
from .ablations import ABLATIONS
from .biencoder import BiEncoder, Training
from .config import LocalConfig
from .data import Context
from .encoding import PairEncoder
from .stages import Corpus
from .symtax import Example, PairCache, Reranker, RerankerConfig
from .taxonomy_fusion import Fusion, Gnn, TaxonomyGraph


# -- 5. the rerankers -------------------------------------------------------------------------------
class Variants:
    """Trains reranker variants on the same examples, sharing LMs as ``lm_mode`` says, and
    ranks the test contexts with each; ``runs`` and ``trained`` collect what they did."""

    def __init__(
        self,
        config: LocalConfig,
        corpus: Corpus,
        taxonomy: TaxonomyGraph,
        examples: Sequence[Example],
        log: Log = quiet,
    ):
        self.config, self.corpus, self.taxonomy, self.examples, self.log = config, corpus, taxonomy, examples, log
        self.encoders: dict[str, PairEncoder] = {}
        self.caches: dict[str, PairCache] = {}
        self.tuned: dict[str, Reranker] = {}  # lm_mode "shared": the reranker whose fine-tuned LM the others use
        self.runs: dict[str, dict[str, Ranking]] = {}
        self.trained: dict[str, dict[str, Any]] = {}

    def train(self, name: str, config: RerankerConfig) -> Reranker:
        """A reranker trained on the examples; its LM shared when another variant tuned it."""
        if config.lm in self.tuned:
            owner = self.tuned[config.lm]
            model = Reranker(
                replace(config, finetune=False), owner.encoder, self.corpus.candidates, self.taxonomy, owner.cache
            )
        else:
            if config.lm not in self.encoders:
                self.encoders[config.lm] = PairEncoder(config.lm, config.max_length, config.device)
                self.caches[config.lm] = PairCache(self.encoders[config.lm], config.batch_size)
            model = Reranker(
                config, self.encoders[config.lm], self.corpus.candidates, self.taxonomy, self.caches[config.lm]
            )
        model.train(self.examples, log=lambda m: self.log(f"  {name}: {m}"))
        if self.config.lm_mode == "shared" and config.lm not in self.tuned:
            self.caches[f"{config.lm} (fine-tuned)"] = model.freeze()
            self.tuned[config.lm] = model
        return model

    def add(
        self,
        name: str,
        config: RerankerConfig,
        test: Sequence[Context],
        candidates: Sequence[Sequence[str]],
        model: Reranker | None = None,
        enriched: bool = True,
    ) -> Reranker:
        """The variant ``name``: ``model`` (or one trained with ``config``) ranking ``candidates``."""
        started = time.perf_counter()
        if model is None:
            model = self.train(name, config)
        every = max(1, len(test) // 5)

        def progress(done: int, total: int) -> None:
            if done % every == 0 and done < total:
                self.log(f"  {name}: ranked {done}/{total} test contexts")

        self.runs[name] = dict(zip((c.id for c in test), model.rank(test, candidates, progress=progress)))
        self.trained[name] = {
            **model.describe(),
            "lm_mode": self.config.lm_mode,
            "enrichment": self.config.enrich and enriched,
            "seconds": round(time.perf_counter() - started, 1),
        }
        self.log(f"{name}: {self.trained[name]['seconds']} s")
        return model

    def alias(self, name: str, of: str) -> None:
        self.runs[name], self.trained[name] = self.runs[of], self.trained[of]

    @property
    def pairs_encoded(self) -> dict[str, int]:
        return {lm: cache.encoded for lm, cache in self.caches.items()}


def rerank(
    variants: Variants, test: Sequence[Context], prefetched: Sequence[Sequence[str]], enriched: Sequence[Sequence[str]]
) -> tuple[list[str], list[str]]:
    """SymTax, its ablations and the LM × fusion grid; the rows of the two tables."""
    config, base = variants.config, variants.config.base
    main = f"SymTax ({_short(config.lms[0])}, vector, hyperbolic)"
    full = variants.add(main, base, test, enriched)
    if "-enrichment" in config.ablations:
        variants.add(ABLATIONS["-enrichment"], base, test, prefetched, model=full, enriched=False)
    if "-taxonomy" in config.ablations:
        variants.add(ABLATIONS["-taxonomy"], replace(base, taxonomy="none"), test, enriched)
    for geometry in ("euclidean", "spherical"):
        if geometry in config.ablations:
            variants.add(ABLATIONS[geometry], replace(base, geometry=geometry), test, enriched)
    ablation_rows = [main, *(ABLATIONS[a] for a in config.ablations if not a.startswith("graph-"))]
    fusion_rows = []
    gnns = [cast(Gnn, a.split("-")[1]) for a in config.ablations if a.startswith("graph-")]  # known ablations
    for lm in config.lms:
        fusions: list[tuple[Fusion, Gnn]] = [("vector", base.gnn), *(("graph", g) for g in gnns)]
        for fusion, gnn in fusions:
            row = f"{_short(lm)}_{fusion}" + (f" ({gnn.upper()})" if fusion == "graph" else "")
            if lm == config.lms[0] and fusion == "vector":
                variants.alias(row, main)
            else:
                variants.add(row, replace(base, lm=lm, taxonomy=fusion, gnn=gnn), test, enriched)
            fusion_rows.append(row)
    return ablation_rows, fusion_rows


def biencoders(
    config: LocalConfig,
    corpus: Corpus,
    train: Sequence[Context],
    prefetched: Sequence[Sequence[str]],
    test: Sequence[Context],
    candidates: Sequence[Sequence[str]],
    first_stage: dict[str, Ranking],
    log: Log = quiet,
) -> tuple[dict[str, dict[str, Ranking]], dict[str, Any], BiEncoder]:
    """The bi-encoder (:mod:`.biencoder`) untrained and fine-tuned, ranking ``candidates``, and
    the fine-tuned one fused (RRF) with the ``first_stage`` ranking of the same lists; the
    fine-tuned model too."""
    settings = config.biencoder
    lm = _short(settings.lm)
    encoder = PairEncoder(settings.lm, settings.max_length, settings.device)
    runs: dict[str, dict[str, Ranking]] = {}
    described: dict[str, Any] = {}
    ids = [c.id for c in test]

    def ranked(name: str, model: BiEncoder) -> None:
        started = time.perf_counter()
        runs[name] = dict(zip(ids, model.rank(test, candidates)))
        described[name] = {**model.describe(), "rank_seconds": round(time.perf_counter() - started, 1)}
        log(f"{name}: trained {described[name]['train_seconds']} s, ranked {described[name]['rank_seconds']} s")

    for name, steps in (
        (f"{lm} bi-encoder, untrained", 0),
        (f"{lm} bi-encoder, fine-tuned ({settings.max_steps} steps)", settings.max_steps),
    ):
        model = BiEncoder(
            replace(settings, max_steps=steps, checkpoints=settings.checkpoints if steps else ()),
            encoder,
            corpus.candidates,
        )
        model.train(
            [Training(c, tuple(p)) for c, p in zip(train, prefetched)],
            log=lambda m: log(f"  {name}: {m}"),  # noqa: B023  (called in this iteration)
            at_checkpoint=lambda step: ranked(f"{lm} bi-encoder, fine-tuned ({step} of {steps} steps)", model),  # noqa: B023
        )
        ranked(name, model)
    fused, rrf = f"{name} + first stage (RRF)", ReciprocalRankFusion(())
    runs[fused] = {q: rank(rrf.fuse([runs[name][q], first_stage[q]]), len(runs[name][q])) for q in ids}
    return runs, described, model


def _short(lm: str) -> str:
    """An LM's name for table rows: a model folder by its own name."""
    return Path(lm.removeprefix("hf:")).name if lm.startswith("hf:") else lm
