"""The configuration of a local-recommendation experiment (:mod:`.experiment` runs it).

Frozen and typed, so that a run is described by one value: what data, how it is split,
how candidates are prefetched and enriched, which rerankers are trained and for how long.
Each knob of ``citegraph evaluate local`` is declared once, on the field it sets
(:func:`citegraph.options.option`): the command's options and the registry's
defaults are derived from these fields. Light to import: the CLI builds it from its options
without loading torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ..errors import CitegraphError, UsageError
from ..options import option
from ..retrieval.dense.encoder_specs import HUB_PREFIX, encoder_choices
from .ablations import ABLATIONS, DEFAULT_ABLATIONS, LM_MODES, RERANKERS
from .biencoder import SEED, BiEncoderConfig
from .enrich import SIZE
from .prefetch import DEPTH
from .symtax import RerankerConfig

Textless = Literal["skip", "keep"]
PROFILE_SENTENCES = 20  # citing sentences per public profile, the newest (local/profile.py says why)
CandidateFields = Literal["all", "uniform", "abstracts"]
CANDIDATE_FIELDS: tuple[CandidateFields, ...] = ("all", "uniform", "abstracts")


def seed_list(values: Sequence[str] | None) -> tuple[int, ...]:
    """``--seeds`` as integers (none given: ``()``)."""
    try:
        return tuple(int(v) for v in values or ())
    except ValueError:
        raise CitegraphError(f"--seeds: {','.join(values or ())!r} is not a comma-separated list of integers") from None


def lm_name(value: str) -> str:
    """An LM given as a model folder is read as hf:<folder>; names and hub ids stay as they are."""
    value = value.strip()
    return f"{HUB_PREFIX}{value}" if not value.startswith(HUB_PREFIX) and Path(value).expanduser().is_dir() else value


@dataclass(frozen=True)
class SplitConfig:
    """Which contexts are answerable, where the time-ordered split cuts, how many are used."""

    test_share: float = field(
        default=0.2,
        metadata=option(
            "--test-share",
            "Share of the contexts, newest citing papers first, held out for testing.",
            minimum=0,
            maximum=1,
            open_bounds=True,
        ),
    )
    whole_years: bool = field(
        default=False, metadata=option("--whole-years", "Cut the time-ordered split between years only.")
    )
    max_train: int | None = field(
        default=2000,
        metadata=option(
            "--max-train", "Training contexts: a random sample of the older citing papers' contexts.", minimum=1
        ),
    )
    max_test: int | None = field(
        default=500,
        metadata=option(
            "--max-test", "Test contexts: a random sample of the newer citing papers' contexts.", minimum=1
        ),
    )
    textless: Textless = field(
        default="skip",
        metadata=option(
            "--textless",
            "Contexts citing a paper without title and abstract: skip them, or keep them (such papers "
            "are reachable only through enrichment).",
        ),
    )

    def __post_init__(self) -> None:
        if self.textless not in ("skip", "keep"):
            raise CitegraphError(f"textless must be skip or keep, not {self.textless!r}")


@dataclass(frozen=True)
class PrefetchConfig:
    spec: str = field(
        default="bm25",
        metadata=option(  # built over the graph's papers
            "--prefetch",
            "First stage, indexed over the graph's papers, e.g. 'rrf(bm25,minilm)'. Spelled as --with.",
            type="spec",
        ),
    )
    depth: int = field(default=DEPTH, metadata=option("--depth", "Prefetched candidates per context."))

    def __post_init__(self) -> None:
        from ..retrieval.spec import parse_spec

        object.__setattr__(self, "spec", str(parse_spec(self.spec)))  # canonical: it names the prefetch rows


@dataclass(frozen=True)
class SaveConfig:
    """Where the fine-tuned bi-encoder is kept (:mod:`.saved`), and what its card says of its data."""

    folder: Path | None = field(
        default=None,
        metadata=option(
            "--save",
            "Keep the fine-tuned bi-encoder in this folder (sentence-transformers layout, with a model card), "
            "loadable as hf:FOLDER; needs --rerankers biencoder.",
            path="out",
        ),
    )
    licence: str | None = field(
        default=None,
        metadata=option(
            "--licence", "The training data's licence for the model card, e.g. cc-by-4.0 (ScisummNet, ACL Anthology)."
        ),
    )


@dataclass(frozen=True)
class LocalConfig:
    """A local-recommendation experiment: data, split, prefetch, enrichment, rerankers, budget.

    ``reranker`` holds the head and pair options; its ``lm``, ``max_steps``, ``finetune``
    and ``seed`` are set from this configuration by :attr:`base`, the one place the full
    model's :class:`RerankerConfig` is built. The bi-encoder's LM is the first of ``lms``.
    """

    data: Path | None = field(
        default=None,
        metadata=option(  # None: the graph's contexts, exported
            "--data",
            "A query set (JSONL, see README; `citegraph contexts export` writes one). Default: every context "
            "in the graph, exported to OUT/contexts.jsonl.",
            path="file",
        ),
    )
    lms: tuple[str, ...] = field(
        default=("minilm",),
        metadata=option(  # the first is SymTax's, all fill Table 4
            "--encoder",
            "The reranker's LM, or several comma-separated (they fill the LM × fusion table): "
            f"{', '.join(encoder_choices())} or a model folder.",
            convert=lambda names: tuple(map(lm_name, names)),
        ),
    )
    candidates: CandidateFields = field(
        default="all",
        metadata=option(
            "--candidates",
            "all: a candidate is its title and abstract, as the graph has them; uniform: every candidate "
            "is its title only (the candidate set unchanged), for the prefetcher, the controls' lists and "
            "every model; abstracts: only the papers with an abstract are candidates, each its title and "
            "abstract (a context whose cited papers have none is dropped). Abstracts exist for ~10 % of the "
            "ACL-200 ∪ ScisummNet candidates, mostly the cited ones: in 'all' a model could learn "
            "'prefer an abstract'; 'uniform' leaves that prior to the controls, 'abstracts' removes it.",
        ),
    )
    prefetch: PrefetchConfig = field(default_factory=PrefetchConfig)
    first_stages: tuple[str, ...] = field(
        default=(),
        metadata=option(  # rows, nothing reranked
            "--first-stages",
            "More first stages scored alone on the test contexts (rows of the table, nothing "
            "reranked), e.g. 'minilm,rrf(bm25,minilm)'. Spelled as --with.",
            type="specs",
            cli_default=None,
            convert=lambda specs: tuple(str(s) for s in specs or ()),
        ),
    )
    rerankers: tuple[str, ...] = field(
        default=("symtax",),
        metadata=option(
            "--rerankers",
            f"Comma-separated, of: {', '.join(RERANKERS)} (symtax: the cross-encoder and its ablations; "
            "biencoder: the LM fine-tuned with in-batch and graph hard negatives, untrained and fused rows beside it; "
            "'' for the first stages alone).",
        ),
    )
    biencoder: BiEncoderConfig = field(default_factory=BiEncoderConfig)
    ablations: tuple[str, ...] = field(
        default=DEFAULT_ABLATIONS,
        metadata=option("--ablations", f"Comma-separated, of: {', '.join(ABLATIONS)} ('' for the full model only)."),
    )
    enrich: bool = field(
        default=True,
        metadata=option(
            "--enrich/--no-enrich",
            "SymTax's Enricher; --no-enrich sends no enrichment query: models rank the prefetched lists.",
        ),
    )
    lm_mode: str | None = field(
        default="finetune",
        metadata=option(  # None: chosen by the device
            "--lm-mode",
            "finetune: every variant fine-tunes its LM (SymTax); shared: the full model fine-tunes it, the "
            "ablations reuse it frozen; frozen: the pretrained LM as a cached feature extractor [default: finetune on a "
            "GPU, shared on CPU].",
            type=LM_MODES,
            cli_default=None,
        ),
    )
    max_steps: int = field(
        default=200, metadata=option("--max-steps", "Training steps per reranker (the CPU bound).", minimum=0)
    )
    split: SplitConfig = field(default_factory=SplitConfig)
    size: int = field(default=SIZE, metadata=option("--size", "Candidates after enrichment."))
    profile: bool = field(
        default=False,
        metadata=option(
            "--profile/--no-profile",
            "Public profiles: rows of the prefetcher over each candidate's text plus its citing sentences under "
            "the held-out view, and (with the bi-encoder) of its vector mixed with theirs, beside the rows without.",
        ),
    )
    profile_sentences: int = field(
        default=PROFILE_SENTENCES,
        metadata=option("--profile-sentences", "Citing sentences per profile, the newest.", minimum=1),
    )
    reranker: RerankerConfig = field(default_factory=RerankerConfig)
    seed: int = field(default=12, metadata=SEED)
    seeds: tuple[int, ...] = field(
        default=(),
        metadata=option(
            "--seeds",
            "Repeat the run with each seed (e.g. 0,1,2; it draws the test sample, the training order, the "
            "negatives, the initialisation; the time split stays): tables of mean ± sd over the seeds, paired "
            "tests on each query's mean. Default: --seed alone.",
            cli_default=None,
            convert=seed_list,
        ),
    )
    save: SaveConfig = field(default_factory=SaveConfig)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.ablations) - set(ABLATIONS))
        if unknown:
            raise CitegraphError(f"unknown ablation(s) {', '.join(unknown)}; choose from {', '.join(ABLATIONS)}")
        if set(self.rerankers) - set(RERANKERS):
            raise CitegraphError(f"rerankers must be of {', '.join(RERANKERS)}, not {self.rerankers!r}")
        if self.candidates not in CANDIDATE_FIELDS:
            raise CitegraphError(f"candidates must be one of {', '.join(CANDIDATE_FIELDS)}, not {self.candidates!r}")
        if len(set(self.seeds)) != len(self.seeds):
            raise CitegraphError(f"--seeds names a seed twice: {','.join(map(str, self.seeds))}")
        if self.save.folder is not None and "biencoder" not in self.rerankers:
            raise UsageError("--save keeps the fine-tuned bi-encoder: add biencoder to --rerankers")
        from ..retrieval.spec import parse_spec

        object.__setattr__(self, "first_stages", tuple(str(parse_spec(s)) for s in self.first_stages))
        if not self.lms:
            raise CitegraphError("name at least one LM (encoder)")
        if self.lm_mode is None:
            object.__setattr__(self, "lm_mode", default_lm_mode(self.reranker.device))
        if self.lm_mode not in LM_MODES:
            raise CitegraphError(f"lm_mode must be one of {', '.join(LM_MODES)}, not {self.lm_mode!r}")
        if not self.enrich:  # nothing to take away
            object.__setattr__(self, "ablations", tuple(a for a in self.ablations if a != "-enrichment"))
        object.__setattr__(self, "biencoder", replace(self.biencoder, lm=self.lms[0]))

    @property
    def run_seeds(self) -> tuple[int, ...]:
        """The seeds the run is repeated with (``seed`` alone unless ``seeds`` names several)."""
        return self.seeds or (self.seed,)

    def with_seed(self, seed: int) -> LocalConfig:
        """This configuration as one run with ``seed`` (the bi-encoder's seed too)."""
        return replace(self, seed=seed, seeds=(), biencoder=replace(self.biencoder, seed=seed))

    @property
    def base(self) -> RerankerConfig:
        """The full model's reranker; every variant is a replacement of it."""
        return replace(
            self.reranker, lm=self.lms[0], max_steps=self.max_steps, finetune=self.lm_mode != "frozen", seed=self.seed
        )


def default_lm_mode(device: str | None) -> str:
    """Fine-tune per variant on a GPU (as SymTax); on a CPU fine-tune once and share."""
    from .encoding import default_device

    return "finetune" if (device or default_device()).startswith("cuda") else "shared"
