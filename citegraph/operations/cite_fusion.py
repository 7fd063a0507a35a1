"""`cite`'s two fusion weights tuned for a saved model (``citegraph cite tune``): the draft's
field (its title and abstract) and the model's cosine, each beside the first stage's score.

On the graph the model was trained on, the model's own split is rebuilt from its card
(``citegraph.json``: seed, training contexts used, split settings) with
:func:`citegraph.local.stages.split`, so the **validation slice** is drawn from the *training
side* of the time-ordered split — citing papers older than every test paper — and only from the
contexts the model was *not* trained on; a test context is never read. Each validation context
is asked as a user would ask ``cite``: its sentence (``[CIT]`` the slot), the citing paper's title
and abstract as the draft's, its other references as the bibliography, as of the year before the
citing paper's (its own citations are in the graph: no evidence then). The candidates and the
model's cosines are computed once per context; every grid point re-ranks them
(:func:`citegraph.recommend.cite.suggest`, the code path of ``cite``).

The choice is the best MRR@50, then R@10, then the weights nearest the defaults; ``write``
stores it with the grid and the slice in the card's ``cite`` entry, which ``cite --model`` reads.
This operation reads ``local/`` (the split) and writes the card: it sits above both, so the
recommender itself needs neither.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..errors import CitegraphError

if TYPE_CHECKING:  # the driver and the encoders load with the recommender, not with --help
    from ..graph import GraphStore
    from ..recommend import Recommender
    from ..recommend.cite import CiteModel

DEPTH = 50  # suggestions per context: MRR@50
TUNED_BY = "citegraph cite tune"

Weight = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class TuneRequest(BaseModel):
    """Which model, how many validation contexts, which weights to try, and whether to keep the choice."""

    model_config = ConfigDict(extra="forbid")

    model: Path = Field(description="A model folder citegraph evaluate local --save wrote, on this graph")
    contexts: Annotated[int, Field(ge=1, le=10_000)] = Field(100, description="Validation contexts")
    draft: list[Weight] = Field(
        [0.0, 0.25, 0.5, 1.0], min_length=1, max_length=50, description="Draft weights to try (comma-separated)"
    )
    weights: list[Weight] = Field(
        [0.0, 0.5, 1.0, 2.0, 4.0], min_length=1, max_length=50, description="Model weights to try (comma-separated)"
    )
    write: bool = Field(False, description="Store the choice in the model's card (citegraph.json, cite.fusion)")


class ValidationSlice(BaseModel):
    contexts: int = Field(description="Validation contexts asked")
    drawn_from: int = Field(description="Training-side contexts the model was not trained on")
    training_side: int
    trained_on: int
    train_until: str | None
    seed: int


class GridPoint(BaseModel):
    draft: float
    model: float
    mrr: float = Field(description=f"MRR@{DEPTH} of the cited paper")
    recall_at_10: float = Field(serialization_alias="r@10", description="R@10 of the cited paper")


class TuneResponse(BaseModel):
    validation: ValidationSlice
    measure: str
    grid: list[GridPoint]
    chosen: GridPoint
    default: GridPoint | None = Field(description="The default weights' figures, when the grid holds them")
    seconds: float
    written: str | None = Field(description="The card the choice was written to (null: not written)")


def validation_slice(store: GraphStore, card: dict) -> tuple[list, ValidationSlice]:
    """Every context of the model's training side it was not trained on (sorted by id), and
    the slice's account; a graph whose split is not the card's is refused."""
    from ..local.config import SplitConfig
    from ..local.data import contexts_from_graph
    from ..local.stages import load_corpus, split

    try:
        seed, used, recorded = card["training"]["seed"], card["split"]["train_used"], card["split"]
    except (KeyError, TypeError) as exc:
        raise CitegraphError(
            f"the model's card records no training seed or split ({exc}): not one evaluate local --save wrote"
        ) from None
    # the run's own split settings (a card from before they were recorded: the defaults it ran with)
    settings = {k: recorded[k] for k in ("test_share", "whole_years", "textless") if k in recorded}
    corpus = load_corpus(store, recorded.get("candidates", "all"))
    contexts = list(contexts_from_graph(store))
    whole = split(store, corpus, contexts, SplitConfig(max_train=None, max_test=1, **settings), seed)
    trained = split(store, corpus, contexts, SplitConfig(max_train=used, max_test=1, **settings), seed)
    if whole.info.get("train_until") != recorded.get("train_until"):
        raise CitegraphError(
            f"the graph's split ends its training side at {whole.info.get('train_until')}, the card's at "
            f"{recorded.get('train_until')}: not the graph the model was trained on"
        )
    seen = {c.id for c in trained.train}
    unseen = sorted((c for c in whole.train if c.id not in seen), key=lambda c: c.id)
    if not unseen:
        raise CitegraphError(
            f"the model was trained on all {len(whole.train)} training contexts: none is left to validate on "
            "(train with --max-train below that)"
        )
    return unseen, ValidationSlice(
        contexts=0,
        drawn_from=len(unseen),
        training_side=len(whole.train),
        trained_on=len(seen),
        train_until=whole.info.get("train_until"),
        seed=seed,
    )


def tune(
    recommender: Recommender,
    model: CiteModel,
    request: TuneRequest,
    progress: Callable[[int, float], None] | None = None,
) -> TuneResponse:
    """The grid's figures on the validation slice and the choice; ``progress`` hears the
    contexts done and the seconds spent, every 20 contexts."""
    from ..library.draft import context_slot
    from ..library.entries import LibraryEntry
    from ..recommend.cite import (
        DRAFT_WEIGHT,
        MODEL_WEIGHT,
        RERANK_DEPTH,
        Fusion,
        draft_side,
        first_stage,
        model_text,
        query_text,
        reranked,
        slot_candidates,
    )
    from ..recommend.model_folder import FUSION_KEY
    from ..retrieval.dense.model_card import CARD, read_card, record_card

    card = read_card(request.model)
    started = time.monotonic()
    unseen, drawn = validation_slice(recommender.store, card)
    contexts = random.Random(drawn.seed).sample(unseen, min(request.contexts, len(unseen)))
    drawn.contexts = len(contexts)
    grid = [Fusion(d, m) for d in request.draft for m in request.weights]
    reciprocal: dict[Fusion, list[float]] = {f: [] for f in grid}
    for n, context in enumerate(contexts, start=1):
        references = {
            r: LibraryEntry(f"references of {context.citing}", id=r)
            for r in recommender.seed(context.citing).references
            if r not in context.cited
        }
        draft = replace(
            context_slot(context.text), title=context.title, abstract=context.abstract, references=references
        )
        text, encoded = query_text(draft.slots[0]), model_text(draft.slots[0])
        as_of = context.year - 1 if context.year else None
        candidates = slot_candidates(recommender, text, draft_side(recommender, draft, as_of, text), set(), as_of)
        for draft_weight in dict.fromkeys(request.draft):  # the first stage's order, and its top's cosines, once
            first = first_stage(candidates, recommender.weights, Fusion(draft_weight, 0.0))
            [cosines] = model.cosines([encoded], [[hit.id for hit in first[:RERANK_DEPTH]]])
            for fusion in (f for f in grid if f.draft == draft_weight):
                ranked = reranked(candidates, first, cosines, recommender.weights, fusion, DEPTH)
                reciprocal[fusion].append(_reciprocal_rank([s.id for s in ranked], context.cited))
        if progress and n % 20 == 0:
            progress(n, time.monotonic() - started)
    points = {
        f: GridPoint(
            draft=f.draft,
            model=f.model,
            mrr=round(statistics.mean(rr), 6),
            recall_at_10=round(statistics.mean(r >= 0.1 for r in rr), 6),
        )
        for f, rr in reciprocal.items()
    }
    best = max(
        grid,
        key=lambda f: (
            points[f].mrr,
            points[f].recall_at_10,
            -abs(f.draft - DRAFT_WEIGHT) - abs(f.model - MODEL_WEIGHT),
        ),
    )
    measure = f"MRR@{DEPTH}, then R@10"
    written = None
    if request.write:
        record_card(
            request.model,
            FUSION_KEY,
            {
                "fusion": {"draft": best.draft, "model": best.model},
                "measure": measure,
                "validation": drawn.model_dump(),
                "grid": [points[f].model_dump(by_alias=True) for f in grid],
                "tuned_by": TUNED_BY,
            },
        )
        written = str(request.model / CARD)
    return TuneResponse(
        validation=drawn,
        measure=measure,
        grid=[points[f] for f in grid],
        chosen=points[best],
        default=points.get(Fusion()),
        seconds=round(time.monotonic() - started, 1),
        written=written,
    )


def _reciprocal_rank(ids: list[str], cited: tuple[str, ...]) -> float:
    return next((1 / rank for rank, found in enumerate(ids, start=1) if found in cited), 0.0)
