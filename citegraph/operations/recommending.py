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

from ..errors import CitegraphError, NotFoundError
from ..library.entries import LibraryEntry
from ..vocabulary import canonical_id, counted, year_of
from .answers import MatchOut, RecommendationOut, SeedOut, WhyOut
from .fields import AS_OF_TEXT, MAX_IDS, MAX_WHY, WHY_TEXT, YEAR, Date, Id, K, PaperId, given, integer

if TYPE_CHECKING:  # the driver loads with the first recommender, not with --help
    from ..graph import GraphStore
    from ..recommend import Asked, Recommender

#: A view as of a year holding fewer citations than this is thin: one warning line says so.
#: ACL-200's citing papers add 3,049 to 6,471 citations a year (2009-2015, 32,873 in all over
#: 10,298 papers); under 1,000 — a third of its sparsest year, one citation per ten papers —
#: most references have no citing paper in the view, so co-citation, coupling and "cited by
#: your references" have almost nothing to count and the ranking is the text's alone.
THIN_VIEW = 1_000

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
    why: list[PaperId] = Field([], max_length=MAX_WHY, description=WHY_TEXT)


class RecommendResponse(BaseModel):
    seed: SeedOut
    recommendations: list[RecommendationOut]
    matches: list[MatchOut] = Field([], description="How the library's entries were matched")
    negatives: list[MatchOut] = Field([], description="How the papers not wanted were matched")
    ignored_references: list[str] = Field([], description="Given references that are not papers of the graph")
    why: list[WhyOut] = Field([], description="What became of each paper asked about (why), in its order")
    warnings: list[str] = Field([], description="What the answer stands on that is thin (one line each)")


class ExplainRequest(SeedRequest):
    model_config = ConfigDict(json_schema_extra=_ONE_SEED)

    candidate: PaperId = Field(description="The paper whose rank, or absence, is to be explained")
    k: Annotated[int, *integer(K)] = Field(20, description="The recommendations' length: a rank past it is below k")


class Explanation(WhyOut):
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
    """The top ``k`` papers to cite for the request's seed, with their reasons; what became of
    each paper asked about (``why``: every candidate is ranked then); a thin as-of view said."""
    asked = ask(recommender, request, entries)
    known_papers(recommender.store, request.why, "why")
    given = [canonical_id(r) for r in request.references]  # a paper's own and a library's are known
    known = {row["id"] for row in recommender.store.run("explore/known_ids", ids=given)} if given else set()
    candidates = recommender.candidates(asked.seed)
    ranked = recommender.ranked(candidates, len(candidates) if request.why else request.k)
    fates = recommender.fates(asked.seed, request.why, candidates, ranked, request.k)
    return RecommendResponse(
        seed=SeedOut.of(asked.seed),
        recommendations=[RecommendationOut.of(r, request.explain) for r in ranked[: request.k]],
        matches=[MatchOut.of(m) for m in asked.library],
        negatives=[MatchOut.of(m) for m in asked.negatives],
        ignored_references=[r for r in given if r not in known],
        why=[WhyOut.of_fate(f) for f in fates],
        warnings=as_of_warnings(recommender.store, asked.seed.view.as_of),
    )


def explain(recommender: Recommender, request: ExplainRequest, entries: Entries = Entries()) -> Explanation:
    """Why one paper is (or is not) recommended for the seed: ``recommend``'s ``why`` for one
    paper, with how the entries were matched."""
    asked = ask(recommender, request, entries)
    known_papers(recommender.store, [request.candidate], "candidate")
    candidates = recommender.candidates(asked.seed)
    ranked = recommender.ranked(candidates, len(candidates))
    [fate] = recommender.fates(asked.seed, [request.candidate], candidates, ranked, request.k)
    return Explanation(
        **WhyOut.of_fate(fate).model_dump(),
        matches=[MatchOut.of(m) for m in asked.library],
        negatives=[MatchOut.of(m) for m in asked.negatives],
    )


def known_papers(store: GraphStore, ids: Sequence[str], field: str) -> None:
    """Refuses ids asked about that are no paper of the graph, naming the request's field (a
    404 over HTTP, exit 2 on the command line), before anything is ranked."""
    if not ids:
        return
    known = {row["id"] for row in store.run("explore/known_ids", ids=list(ids))}
    if missing := [pid for pid in ids if pid not in known]:
        raise NotFoundError(f"{field}: no paper with id {missing[0]!r} in the graph")


def as_of_warnings(store: GraphStore, as_of: int | None) -> list[str]:
    """One line when the view as of ``as_of`` holds fewer than :data:`THIN_VIEW` citations
    (counted up to there by ``recommend/view_citations``: a large graph reads no more)."""
    if as_of is None:
        return []
    held = store.value("recommend/view_citations", as_of=as_of, enough=THIN_VIEW)
    if held >= THIN_VIEW:
        return []
    return [
        f"as of {as_of} the graph holds {counted(held, 'citation')} (fewer than {THIN_VIEW:,}): the graph "
        "signals have almost nothing to count, the ranking is mostly the text's"
    ]


def _first_day(date: str | None) -> str | None:
    """A date's first day (YYYY-MM-DD): the day from which a paper ingested counts as new."""
    if not date:
        return None
    parts = date.split("-")
    return "-".join(parts + ["01"] * (3 - len(parts)))
