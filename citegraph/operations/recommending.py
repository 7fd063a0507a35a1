"""Recommending citations, and why one paper is (or is not) recommended: the requests, the
answers and the one function of each, for every door (``citegraph recommend``/``watch``/
``explain``, ``POST /recommend``/``/explain``, the MCP tools ``recommend`` and
``explain_recommendation``).

A seed is a paper of the graph (``paper``), a new paper (``title`` and/or ``abstract``, with the
``references`` already chosen and its ``year``) or a library (``papers``: ids, DOIs, arXiv ids),
seen through a view (``as_of``, ``since``, ``field``, ``category``, ``negatives``). A door that
reads library files (the command line's ``--library`` and ``--negative FILE``) hands their
entries to the function beside the request's ids (:class:`Entries`): they are matched alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

from ..errors import CitegraphError
from ..library.entries import LibraryEntry
from ..vocabulary import canonical_id, year_of
from .answers import MatchOut, RecommendationOut, SeedOut
from .fields import AS_OF_TEXT, MAX_IDS, YEAR, Date, Id, K, PaperId, given, integer

if TYPE_CHECKING:  # the driver loads with the first recommender, not with --help
    from ..recommend import Asked, Recommender

#: What the JSON schema says of a seed: one of paper, title, abstract, papers; papers alone.
_ONE_SEED: JsonDict = {
    "anyOf": [{"required": ["paper"]}, {"required": ["title"]}, {"required": ["abstract"]}, {"required": ["papers"]}],
    "not": {"anyOf": [{"required": ["papers", one]} for one in ("paper", "title", "abstract", "references", "year")]},
}
_OF_A_PAPER = ("paper", "title", "abstract", "references", "year")


class SeedRequest(BaseModel):
    """A paper of the graph (``paper``), a new one (``title`` and/or ``abstract``), or a
    library (``papers``: ids, DOIs, arXiv ids, matched to the graph), and what to see."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_ONE_SEED)

    paper: Annotated[str, *given(200, "A paper id in the graph (its text, year and references come from the graph)")]
    title: Annotated[str, *given(2_000, "A new paper's title")]
    abstract: Annotated[str, *given(20_000, "A new paper's abstract")]
    references: list[Id] = Field([], max_length=MAX_IDS, description="Papers already cited (ids in the graph)")
    year: Annotated[int | None, *integer(YEAR)] = Field(
        None, description="Recommend nothing newer (default for a paper: its year)"
    )
    # not nullable, only optional: pydantic does not validate the default (and its stubs want a list)
    papers: list[Id] = Field(
        None,  # type: ignore[arg-type]
        min_length=1,
        max_length=MAX_IDS,
        description="A library to recommend for: paper ids, DOIs or arXiv ids (instead of paper, title, abstract)",
    )
    negatives: list[Id] = Field(
        [], max_length=MAX_IDS, description="Papers not wanted (ids, DOIs, arXiv ids): their neighbours are pushed down"
    )
    as_of: Date | None = Field(None, description=AS_OF_TEXT)
    since: Date | None = Field(
        None,
        description="Only papers new since this date (YYYY-MM-DD, YYYY-MM or YYYY): published in its year "
        "or later, or ingested on it or later",
    )
    field: Annotated[str | None, Field(max_length=200)] = Field(None, description="Only papers of this MAG field")
    category: Annotated[str | None, Field(max_length=200)] = Field(
        None, description="Only papers of this arXiv category, e.g. cs.CL"
    )


class RecommendRequest(SeedRequest):
    model_config = ConfigDict(json_schema_extra=_ONE_SEED)

    k: Annotated[int, *integer(K)] = Field(20, description="Papers to recommend")
    explain: bool = Field(True, description="Give each recommendation's reasons and signals")


class RecommendResponse(BaseModel):
    seed: SeedOut
    recommendations: list[RecommendationOut]
    matches: list[MatchOut] = Field([], description="How the library's entries were matched")
    negatives: list[MatchOut] = Field([], description="How the papers not wanted were matched")
    ignored_references: list[str] = Field([], description="Given references that are not papers of the graph")


class ExplainRequest(SeedRequest):
    model_config = ConfigDict(json_schema_extra=_ONE_SEED)

    candidate: PaperId = Field(description="The paper whose rank, or absence, is to be explained")


class Explanation(BaseModel):
    candidate: str
    candidate_found: bool = Field(description="Whether the paper is a candidate for the seed at all")
    title: str | None = None
    rank: int | None = Field(default=None, description="Its rank among every candidate")
    of: int | None = Field(default=None, description="How many candidates were ranked")
    score: float | None = None
    features: dict[str, float] = Field(default={}, description="The features its score weighs")
    explanation: list[str] = Field(default=[], description="Its reasons, one a line")
    why_not: str | None = Field(default=None, description="Why it is no candidate")
    matches: list[MatchOut] = Field(default=[], description="How the library's entries were matched")
    negatives: list[MatchOut] = Field(default=[], description="How the papers not wanted were matched")


@dataclass(frozen=True)
class Entries:
    """Library entries a door read from files: they join the request's ``papers`` and ``negatives``."""

    papers: Sequence[LibraryEntry] = ()
    negatives: Sequence[LibraryEntry] = ()


def ask(recommender: Recommender, request: SeedRequest, entries: Entries = Entries()) -> Asked:
    """The request's seed, its entries matched (what every operation on a seed starts with);
    a library and a paper's fields together, or none of them, is refused."""
    from ..recommend import View

    library = [*(request.papers or ()), *entries.papers]
    fields = [name for name in _OF_A_PAPER if name in request.model_fields_set and getattr(request, name) is not None]
    if library and fields:
        raise CitegraphError(f"give papers (a library) or {fields[0]}, not both")
    if not library and not {"paper", "title", "abstract"} & set(fields):
        raise CitegraphError("give a paper id, or a title and/or an abstract, or papers (a library)")
    view = View(
        as_of=year_of(request.as_of),
        field=request.field,
        category=request.category,
        since=year_of(request.since),
        ingested_since=_first_day(request.since),
    )
    return recommender.ask(
        request.paper,
        papers=library,
        title=request.title or "",
        abstract=request.abstract or "",
        references=request.references,
        year=request.year,
        negatives=[*request.negatives, *entries.negatives],
        view=view,
    )


def recommend(recommender: Recommender, request: RecommendRequest, entries: Entries = Entries()) -> RecommendResponse:
    """The top ``k`` papers to cite for the request's seed, with their reasons."""
    asked = ask(recommender, request, entries)
    given = [canonical_id(r) for r in request.references]  # a paper's own and a library's are known
    known = {row["id"] for row in recommender.store.run("explore/known_ids", ids=given)} if given else set()
    found = recommender.recommend_for(asked.seed, request.k)
    return RecommendResponse(
        seed=SeedOut.of(asked.seed),
        recommendations=[RecommendationOut.of(r, request.explain) for r in found],
        matches=[MatchOut.of(m) for m in asked.library],
        negatives=[MatchOut.of(m) for m in asked.negatives],
        ignored_references=[r for r in given if r not in known],
    )


def explain(recommender: Recommender, request: ExplainRequest, entries: Entries = Entries()) -> Explanation:
    """Why one paper is (or is not) recommended for the seed: its rank, score, features and reasons."""
    asked = ask(recommender, request, entries)
    matches, negatives = [MatchOut.of(m) for m in asked.library], [MatchOut.of(m) for m in asked.negatives]
    candidates = recommender.candidates(asked.seed)
    if request.candidate not in candidates:
        return Explanation(
            candidate=request.candidate,
            candidate_found=False,
            why_not="not a candidate: not linked to the seed in the graph nor among the text matches, "
            "or excluded (already cited, a seed, not wanted, newer than the seed or the as-of date, "
            "outside the field or category)",
            matches=matches,
            negatives=negatives,
        )
    ranking = recommender.weights.rank(candidates, len(candidates))
    [(rank, hit)] = [(i, h) for i, h in enumerate(ranking, start=1) if h.id == request.candidate]
    found = candidates[request.candidate]
    return Explanation(
        candidate=request.candidate,
        candidate_found=True,
        title=found.facts.title if found.facts else None,
        rank=rank,
        of=len(ranking),
        score=round(hit.score, 6),
        features=found.features,
        explanation=[s.text for s in found.signals],
        matches=matches,
        negatives=negatives,
    )


def _first_day(date: str | None) -> str | None:
    """A date's first day (YYYY-MM-DD): the day from which a paper ingested counts as new."""
    if not date:
        return None
    parts = date.split("-")
    return "-".join(parts + ["01"] * (3 - len(parts)))
