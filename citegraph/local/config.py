"""The configuration of a local-recommendation experiment (:mod:`.evaluate` runs it).

Frozen and typed, so that a run is described by one value: what data, how it is split,
how candidates are prefetched and enriched, which rerankers are trained and for how long.
Light to import: the CLI builds it from its options without loading torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ..errors import CitegraphError
from .ablations import ABLATIONS, DEFAULT_ABLATIONS, LM_MODES, RERANKERS
from .biencoder import BiEncoderConfig
from .enrich import SIZE
from .prefetch import DEPTH
from .rerank import RerankerConfig

Textless = Literal["skip", "keep"]


@dataclass(frozen=True)
class SplitConfig:
    """Which contexts are answerable, where the time-ordered split cuts, how many are used."""

    test_share: float = 0.2
    whole_years: bool = False
    max_train: int | None = 2000
    max_test: int | None = 500
    textless: Textless = "skip"

    def __post_init__(self) -> None:
        if self.textless not in ("skip", "keep"):
            raise CitegraphError(f"textless must be skip or keep, not {self.textless!r}")


@dataclass(frozen=True)
class PrefetchConfig:
    spec: str = "bm25"  # any retriever spec (citegraph.retrieval.spec), built over the graph's papers
    depth: int = DEPTH

    def __post_init__(self) -> None:
        from ..retrieval.spec import parse_spec

        object.__setattr__(self, "spec", str(parse_spec(self.spec)))  # canonical: it names the prefetch rows


@dataclass(frozen=True)
class LocalConfig:
    """A local-recommendation experiment: data, split, prefetch, enrichment, rerankers, budget.

    ``reranker`` holds the head and pair options; its ``lm``, ``max_steps``, ``finetune``
    and ``seed`` are set from this configuration by :attr:`base`, the one place the full
    model's :class:`RerankerConfig` is built.
    """

    data: Path | None = None  # a query set (JSONL); None: the graph's contexts, exported
    split: SplitConfig = field(default_factory=SplitConfig)
    prefetch: PrefetchConfig = field(default_factory=PrefetchConfig)
    enrich: bool = True
    size: int = SIZE  # candidates after enrichment
    first_stages: tuple[str, ...] = ()  # more retriever specs scored alone on the test contexts (rows, no reranking)
    rerankers: tuple[str, ...] = ("symtax",)  # of RERANKERS
    lms: tuple[str, ...] = ("minilm",)  # the rerankers' LMs: the first is SymTax's, all fill Table 4
    ablations: tuple[str, ...] = DEFAULT_ABLATIONS
    lm_mode: str = "finetune"
    max_steps: int = 200
    reranker: RerankerConfig = field(default_factory=RerankerConfig)
    biencoder: BiEncoderConfig = field(default_factory=BiEncoderConfig)
    seed: int = 12

    def __post_init__(self) -> None:
        unknown = sorted(set(self.ablations) - set(ABLATIONS))
        if unknown:
            raise CitegraphError(f"unknown ablation(s) {', '.join(unknown)}; choose from {', '.join(ABLATIONS)}")
        if not self.rerankers or set(self.rerankers) - set(RERANKERS):
            raise CitegraphError(f"rerankers must be one or more of {', '.join(RERANKERS)}, not {self.rerankers!r}")
        from ..retrieval.spec import parse_spec

        object.__setattr__(self, "first_stages", tuple(str(parse_spec(s)) for s in self.first_stages))
        if not self.lms:
            raise CitegraphError("name at least one LM (encoder)")
        if self.lm_mode not in LM_MODES:
            raise CitegraphError(f"lm_mode must be one of {', '.join(LM_MODES)}, not {self.lm_mode!r}")
        if not self.enrich:  # nothing to take away
            object.__setattr__(self, "ablations", tuple(a for a in self.ablations if a != "-enrichment"))

    @property
    def base(self) -> RerankerConfig:
        """The full model's reranker; every variant is a replacement of it."""
        return replace(self.reranker, lm=self.lms[0], max_steps=self.max_steps, finetune=self.lm_mode != "frozen",
                       seed=self.seed)


def default_lm_mode(device: str | None) -> str:
    """Fine-tune per variant on a GPU (as SymTax); on a CPU fine-tune once and share."""
    from .rerank import default_device

    return "finetune" if (device or default_device()).startswith("cuda") else "shared"
