"""Local citation recommendation (SymTax) registered as the benchmark ``local``: its options
and how they make a :class:`~.config.LocalConfig`. Light to import (the CLI lists it): the
configuration's modules import no torch until a reranker is built."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CitegraphError
from ..evaluation.benchmark import Benchmark, Option, Registered, register
from ..retrieval.encoders import HUB_PREFIX, encoder_choices
from .ablations import ABLATIONS, LM_MODES, RERANKERS
from .biencoder import NEGATIVE_TYPES, BiEncoderConfig
from .config import LocalConfig, PrefetchConfig, SplitConfig
from .rerank import RerankerConfig

if TYPE_CHECKING:
    from ..graph import GraphStore
    from .config import Textless


def lm_name(value: str) -> str:
    """An LM given as a model folder is read as hf:<folder>; names and hub ids stay as they are."""
    value = value.strip()
    return f"{HUB_PREFIX}{value}" if not value.startswith(HUB_PREFIX) and Path(value).expanduser().is_dir() else value


def build(store: GraphStore, *, data: Path | None, encoder: list[str], prefetch, first_stages, rerankers: list[str],
          bi_steps: int, bi_checkpoints: list[str], bi_batch: int, bi_negatives: list[str], bi_lr: float, bi_max_length: int, ablations: list[str], enrich: bool, lm_mode: str | None, max_steps: int, max_train: int, max_test: int,
          test_share: float, whole_years: bool, textless: Textless, depth: int, size: int, max_length: int,
          proj_dim: int, negatives: int, device: str | None, seed: int) -> Benchmark:
    """The benchmark from the command's options (``lm_mode`` None: chosen by the device)."""
    from .config import default_lm_mode
    from .evaluate import LocalRecommendation

    return LocalRecommendation(store, LocalConfig(
        data=data, split=SplitConfig(test_share, whole_years, max_train, max_test, textless),
        prefetch=PrefetchConfig(str(prefetch), depth), first_stages=tuple(str(s) for s in first_stages or ()),
        rerankers=tuple(rerankers),
        biencoder=BiEncoderConfig(lm=lm_name(encoder[0]), max_length=bi_max_length, batch_queries=bi_batch,
                                  negatives=tuple(bi_negatives), max_steps=bi_steps, checkpoints=_steps(bi_checkpoints), lr=bi_lr, seed=seed,
                                  device=device),
        enrich=enrich, size=size, lms=tuple(lm_name(e) for e in encoder), ablations=tuple(ablations),
        lm_mode=lm_mode or default_lm_mode(device), max_steps=max_steps,
        reranker=RerankerConfig(max_length=max_length, proj_dim=proj_dim, negatives=negatives, device=device),
        seed=seed))


def _steps(values: list[str]) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in values)
    except ValueError:
        raise CitegraphError(f"--bi-checkpoints: {','.join(values)!r} is not a comma-separated list of steps") from None


#: The defaults the options show are the configuration's own, so the CLI and Python agree.
_RUN, _SPLIT, _PREFETCH, _HEAD, _BI = LocalConfig(), SplitConfig(), PrefetchConfig(), RerankerConfig(), BiEncoderConfig()

LOCAL = register(Registered(
    "local", "SymTax's Tables 3 and 4: prefetch → enrichment → taxonomy-aware reranker, and its ablations, "
    "trained on older citing papers and tested on newer ones, the test citations hidden from the graph.", build, (
        Option("data", "--data", "A query set (JSONL, see README; `citegraph contexts export` writes one). "
               "Default: every context in the graph, exported to OUT/contexts.jsonl.", Path, path="file"),
        Option("encoder", "--encoder", "The reranker's LM, or several comma-separated (they fill the LM × fusion "
               f"table): {', '.join(encoder_choices())} or a model folder.", list, list(_RUN.lms)),
        Option("prefetch", "--prefetch", "First stage, indexed over the graph's papers, e.g. 'rrf(bm25,minilm)'. "
               "Spelled as --with.", "spec", _PREFETCH.spec),
        Option("first_stages", "--first-stages", "More first stages scored alone on the test contexts (rows of the "
               "table, nothing reranked), e.g. 'minilm,rrf(bm25,minilm)'. Spelled as --with.", "specs"),
        Option("rerankers", "--rerankers", f"Comma-separated, of: {', '.join(RERANKERS)} (symtax: the cross-encoder "
               "and its ablations; biencoder: the LM fine-tuned with in-batch and graph hard negatives, untrained "
               "and fused rows beside it).", list, list(_RUN.rerankers)),
        Option("bi_steps", "--bi-steps", "Bi-encoder training steps (the CPU bound).", int, _BI.max_steps, minimum=0),
        Option("bi_checkpoints", "--bi-checkpoints", "Bi-encoder steps, before the last, at which the model also "
               "ranks the test contexts (rows of the table: a learning curve from one run), e.g. '100,200,400'.",
               list, []),
        Option("bi_batch", "--bi-batch", "Bi-encoder contexts per step (in-batch negatives of each other).", int,
               _BI.batch_queries, minimum=1),
        Option("bi_negatives", "--bi-negatives", f"Bi-encoder hard negatives per context, one of each: "
               f"{', '.join(NEGATIVE_TYPES)} ('' for in-batch only).", list, list(_BI.negatives)),
        Option("bi_lr", "--bi-lr", "Bi-encoder learning rate.", float, _BI.lr, minimum=0, open_bounds=True),
        Option("bi_max_length", "--bi-max-length", "Bi-encoder tokens of a context or a candidate.", int,
               _BI.max_length, minimum=8),
        Option("ablations", "--ablations", f"Comma-separated, of: {', '.join(ABLATIONS)} ('' for the full model "
               "only).", list, list(_RUN.ablations)),
        Option("enrich", "--enrich/--no-enrich", "SymTax's Enricher; --no-enrich sends no enrichment query: models "
               "rank the prefetched lists.", bool, True),
        Option("lm_mode", "--lm-mode", "finetune: every variant fine-tunes its LM (SymTax); shared: the full model "
               "fine-tunes it, the ablations reuse it frozen; frozen: the pretrained LM as a cached feature "
               "extractor [default: finetune on a GPU, shared on CPU].", LM_MODES),
        Option("max_steps", "--max-steps", "Training steps per reranker (the CPU bound).", int, _RUN.max_steps, minimum=0),
        Option("max_train", "--max-train", "Training contexts: a random sample of the older citing papers' "
               "contexts.", int, _SPLIT.max_train, minimum=1),
        Option("max_test", "--max-test", "Test contexts: a random sample of the newer citing papers' contexts.",
               int, _SPLIT.max_test, minimum=1),
        Option("test_share", "--test-share", "Share of the contexts, newest citing papers first, held out for "
               "testing.", float, _SPLIT.test_share, minimum=0, maximum=1, open_bounds=True),
        Option("whole_years", "--whole-years", "Cut the time-ordered split between years only.", bool, _SPLIT.whole_years),
        Option("textless", "--textless", "Contexts citing a paper without title and abstract: skip them, or keep "
               "them (such papers are reachable only through enrichment).", ("skip", "keep"), _SPLIT.textless),
        Option("depth", "--depth", "Prefetched candidates per context.", int, _PREFETCH.depth),
        Option("size", "--size", "Candidates after enrichment.", int, _RUN.size),
        Option("max_length", "--max-length", "Tokens of a (query, candidate) pair.", int, _HEAD.max_length),
        Option("proj_dim", "--proj-dim", "Dimension of the taxonomy manifold.", int, _HEAD.proj_dim),
        Option("negatives", "--negatives", "Negatives per positive, from the candidate list.", int, _HEAD.negatives),
        Option("device", "--device", "torch device [default: cuda when available, else cpu]."),
        Option("seed", "--seed", "The seed of sampling and training.", int, _RUN.seed),
    ), graph=True))
