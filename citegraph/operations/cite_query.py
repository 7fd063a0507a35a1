"""How ``cite`` makes a slot's query, tuned on whole drafts (``citegraph cite tune-query``): the
weights of the slot's clause, its sentence and its neighbours, and the floor of the per-slot
scale of the graph's draft-wide evidence (:class:`citegraph.recommend.cite.SlotQuery`).

The drafts are the draft benchmark's (:mod:`citegraph.recommend.draft_benchmark`, ``citegraph
evaluate cite``) from its **training side** only: citing papers older than every test draft,
split by the same time rule, so no test draft's sentence is read. Each drawn draft is asked
whole, as a writer's draft is (its sentences in paragraphs, its other references the
bibliography, as of the year before the citing paper's); the draft's shared part (references,
title and abstract, the references' neighbourhood) is gathered once, each slot's candidates
once per text weighting, and every floor re-scales them (:func:`citegraph.recommend.cite.fitted`):
the code path of ``cite``, at one search per weighting.

The choice is the best per-slot MRR@50, then R@10, then the point nearest ``cite``'s defaults.
``cite``'s defaults are this command's choice on ACL-200 ∪ ScisummNet (``citegraph repro run
cite-drafts`` runs it and checks the choice; docs/cite.md shows the grid).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..errors import CitegraphError

if TYPE_CHECKING:  # the driver loads with the recommender, not with --help
    from ..recommend import Recommender
    from ..recommend.cite import SlotQuery

Count = Annotated[int, Field(ge=0, le=10)]
Floor = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class QueryTuneRequest(BaseModel):
    """Which training drafts, and which weights and floors to try."""

    model_config = ConfigDict(extra="forbid")

    drafts: Annotated[int, Field(ge=1, le=5_000)] = Field(200, description="Training-side drafts drawn")
    seed: int = Field(0, description="Seed of the draw")
    clause: list[Count] = Field([0, 1, 2], min_length=1, max_length=11, description="Clause weights to try")
    sentence: list[Annotated[int, Field(ge=1, le=10)]] = Field(
        [1, 2], min_length=1, max_length=10, description="Sentence weights to try (1 or more: a slot needs words)"
    )
    neighbours: list[Count] = Field([0, 1], min_length=1, max_length=11, description="Neighbours' weights to try")
    floor: list[Floor] = Field(
        [0.0, 0.25, 0.5, 1.0], min_length=1, max_length=20, description="Graph-evidence floors to try"
    )
    min_slots: Annotated[int, Field(ge=1)] = Field(2, description="Slots a drawn draft has at least")
    paragraph: Annotated[int, Field(ge=1)] = Field(4, description="Sentences to a paragraph of a draft")
    window: Annotated[int, Field(ge=0)] = Field(1, description="Neighbouring sentences read with a slot's")
    test_share: Annotated[float, Field(gt=0, lt=1)] = Field(
        0.2, description="Least share of citing papers, the latest years, on the (unread) test side"
    )


class TrainingDrafts(BaseModel):
    drafts: int = Field(description="Drafts drawn")
    slots: int
    drawn_from: int = Field(description="Training-side drafts with at least min_slots slots")
    training_side: int
    test_from: int = Field(description="The test side's first year: every drawn draft is older")
    seed: int
    citing: list[str] = Field(description="The drawn drafts' citing papers, in the order drawn")


class QueryPoint(BaseModel):
    clause: int
    sentence: int
    neighbours: int
    floor: float
    mrr: float = Field(description="Per-slot MRR@50 inside the drafts")
    recall_at_10: float = Field(serialization_alias="r@10")
    same_top5: float = Field(description="Share of a draft's slot pairs with different answers and identical top 5")


class QueryTuneResponse(BaseModel):
    training: TrainingDrafts
    measure: str
    grid: list[QueryPoint]
    chosen: QueryPoint
    default: QueryPoint | None = Field(description="cite's defaults' figures, when the grid holds them")
    seconds: float


def tune_query(
    recommender: Recommender, request: QueryTuneRequest, progress: Callable[[int, float], None] | None = None
) -> QueryTuneResponse:
    """The grid's figures on the drawn training drafts and the choice; ``progress`` hears the
    drafts done and the seconds spent, every 10 drafts."""
    from ..evaluation.sampling import generator, sample
    from ..recommend.cite import Fusion, SlotQuery, draft_side, fitted, query_text, slot_candidates, suggest
    from ..recommend.draft_benchmark import DEPTH, described, scored, split_drafts

    started = time.monotonic()
    split = split_drafts(recommender.store, request.test_share)
    eligible = [d for d in split.training if len(d.answers) >= request.min_slots]
    if not eligible:
        raise CitegraphError(
            f"no training-side draft (citing papers before {split.test_from}) has {request.min_slots} slots"
        )
    drawn = [
        described(recommender.store, d)
        for d in sample(eligible, request.drafts, generator(request.seed, "cite query tuning"))
    ]
    floors = list(dict.fromkeys(request.floor))
    weightings = [
        SlotQuery(c, s, n, 1.0)
        for c in dict.fromkeys(request.clause)
        for s in dict.fromkeys(request.sentence)
        for n in dict.fromkeys(request.neighbours)
    ]
    grid = [replace(q, graph_floor=f) for q in weightings for f in floors]
    lists: dict[SlotQuery, dict[str, list[list[str]]]] = {point: {} for point in grid}
    for n, draft in enumerate(drawn, start=1):
        read = draft.inside(request.paragraph, request.window)
        side = draft_side(recommender, read, draft.as_of, query_text(read.slots[0], SlotQuery(0, 1, 0)))
        for weighting in weightings:
            ranked: dict[SlotQuery, list[list[str]]] = {replace(weighting, graph_floor=f): [] for f in floors}
            for slot in read.slots:
                text = query_text(slot, weighting)
                unscaled = (
                    slot_candidates(recommender, text, side, side.cited_in(slot), draft.as_of, query=weighting)
                    if text
                    else {}
                )
                for point, slot_lists in ranked.items():
                    scaled = {cid: fitted(c, point.graph_floor) for cid, c in unscaled.items()}
                    slot_lists.append([s.id for s in suggest(scaled, recommender.weights, "", Fusion(), None, DEPTH)])
            for point, slot_lists in ranked.items():
                lists[point][draft.citing] = slot_lists
        if progress and n % 10 == 0:
            progress(n, time.monotonic() - started)
    points = {point: _point(point, scored("tuning", drawn, lists[point])) for point in grid}
    default = SlotQuery()
    best = max(
        grid,
        key=lambda q: (
            points[q].mrr,
            points[q].recall_at_10,
            -abs(q.clause - default.clause)
            - abs(q.sentence - default.sentence)
            - abs(q.neighbours - default.neighbours)
            - abs(q.graph_floor - default.graph_floor),
        ),
    )
    return QueryTuneResponse(
        training=TrainingDrafts(
            drafts=len(drawn),
            slots=sum(len(d.answers) for d in drawn),
            drawn_from=len(eligible),
            training_side=len(split.training),
            test_from=split.test_from,
            seed=request.seed,
            citing=[d.citing for d in drawn],
        ),
        measure=f"MRR@{DEPTH}, then R@10",
        grid=[points[q] for q in grid],
        chosen=points[best],
        default=points.get(default),
        seconds=round(time.monotonic() - started, 1),
    )


def _point(query: SlotQuery, evaluations: dict) -> QueryPoint:
    from ..recommend.draft_benchmark import SAME

    slots, same = evaluations["tuning"].mean, evaluations[f"tuning {SAME}"].mean
    return QueryPoint(
        clause=query.clause,
        sentence=query.sentence,
        neighbours=query.neighbours,
        floor=query.graph_floor,
        mrr=round(slots["MRR"], 6),
        recall_at_10=round(slots["R@10"], 6),
        same_top5=round(same.get(SAME, 0.0), 6),
    )
