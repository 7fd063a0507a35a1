"""The explorer's own routes, mounted by the HTTP service (:mod:`citegraph.service.http`) under
``/explore``: what the page needs beyond the API everyone uses.

* ``POST /explore/library`` — a pasted list of ids/DOIs or an uploaded ``.bib``/``.ris``/
  CSL-JSON file, read by the library's own parsers and matched to the graph (how, or why not);
* ``POST /explore/map`` — the papers to draw for a seed set, with the roles the page gave
  them (recommended, prior, derivative; from ``POST /recommend`` and ``POST /works``) and
  the ones found here (seed, reference, citing): year, first author, citations, similarity
  to the seeds, and the citations among them — the Litmaps-like map's coordinates;
* ``POST /explore/export`` — the page's current list as BibTeX or RIS, through the same
  writers as ``citegraph recommend --format`` (:func:`citegraph.library.export.export`).

It takes the store and the recommender's matcher as arguments (it sits beside the
recommender, not above it), so the service's routes stay where they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..library.entries import LibraryEntry, parse_library
from ..library.export import export
from ..library.match import Match, matched_ids
from ..vocabulary import DATE, calendar_date, canonical_id, year_of

if TYPE_CHECKING:  # the driver loads with the first store
    from ..graph import GraphStore

ROLES = ("seed", "recommended", "prior", "derivative", "reference", "citing")  # the first a paper has colours it
AROUND = 12  # references and citing papers drawn per seed (most cited first)
AsOf = Annotated[str, Field(json_schema_extra={"pattern": DATE}), AfterValidator(calendar_date)]
Id = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(canonical_id)]  # as stored
MEDIA = {"bibtex": ("application/x-bibtex", "bib"), "ris": ("application/x-research-info-systems", "ris")}


class LibraryText(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(
        "pasted.txt",
        min_length=1,
        max_length=200,
        description="The file's name: its extension "
        "(.bib, .ris, .json; anything else: one id, DOI or arXiv id a line) says how to read it",
    )
    text: str = Field(min_length=1, description="The library (bounded by the 1 MiB body limit, answered 413)")


class MatchOut(BaseModel):
    """How a library entry matched (the service's /recommend and /works answer these too)."""

    entry: str
    paper: str | None
    how: str


class SignalOut(BaseModel):
    """A signal behind a recommendation (/recommend's and /cite's)."""

    name: str
    value: float
    text: str
    via: list[str]


class RecommendationOut(BaseModel):
    id: str
    title: str
    year: int | None
    score: float
    explanation: list[str] | None = None
    signals: list[SignalOut] | None = None


class LibraryMatches(BaseModel):
    papers: list[str] = Field(description="The graph papers matched, in the library's order (maybe none)")
    matches: list[MatchOut] = Field(description="Each entry: where it is, the paper it matched (or null), how")


class MapRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    seeds: list[Id] = Field(min_length=1, max_length=500)
    recommended: list[Id] = Field([], max_length=200, description="From POST /recommend")
    prior: list[Id] = Field([], max_length=200, description="From POST /works")
    derivative: list[Id] = Field([], max_length=200, description="From POST /works")
    as_of: AsOf | None = Field(None, description="Only citations made by then (YYYY-MM-DD; by year)")


class MapPaper(BaseModel):
    id: str
    title: str | None
    year: int | None
    author: str | None
    citations: int
    similarity: float
    roles: list[str] = Field(description="Every role the paper has; the first colours it")
    cites: list[str] = Field(description="The drawn papers it cites")


class ExportRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    papers: list[Id] = Field(min_length=1, max_length=2_000)
    notes: dict[str, Annotated[str, Field(max_length=5_000)]] = Field(
        {}, max_length=2_000, description="A note per paper (why it is listed)"
    )
    format: Literal["bibtex", "ris"]


def cosine(a: set[str], b: set[str]) -> float:
    """The cosine of two sets as binary vectors: shared members over the geometric mean of
    the sizes (0 for an empty set) — direct links, shared references and shared citing
    papers count alike when ``a`` is a paper's neighbourhood and ``b`` the seeds' with them."""
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def explorer_routes(
    store: GraphStore, match: Callable[[Sequence[LibraryEntry]], list[Match]], errors: dict[int | str, dict[str, Any]]
) -> APIRouter:
    """The routes over ``store``; ``match`` is the recommender's matcher (its paper index);
    ``errors`` the service's error responses (its handlers answer them)."""
    router = APIRouter(prefix="/explore", tags=["explorer"], responses=errors)

    @router.post("/library", response_model=LibraryMatches, summary="A pasted or uploaded library matched to the graph")
    def library(request: LibraryText) -> dict:
        found = match(parse_library(request.text, Path(request.name).name))
        return {"papers": matched_ids(found), "matches": [m.as_dict() for m in found]}

    @router.post("/map", response_model=list[MapPaper], summary="The papers to draw around a seed set, with roles")
    def map_(request: MapRequest) -> list[dict]:
        as_of = year_of(request.as_of)
        roles: dict[str, list[str]] = {paper: ["seed"] for paper in request.seeds}
        for role in ROLES[1:4]:
            for paper in getattr(request, role):
                roles.setdefault(paper, []).append(role)
        for row in store.run("explore/around", seeds=request.seeds, limit=AROUND, as_of=as_of):
            roles.setdefault(row["id"], []).append(row["role"])
        rows = store.plain("explore/map", ids=list(roles), as_of=as_of)
        neighbours = {row["id"]: {*row["references"], *row["citing"]} for row in rows}
        around = set(request.seeds).union(*(neighbours.get(seed, ()) for seed in request.seeds))
        return [
            {
                "id": row["id"],
                "title": row["title"],
                "year": row["year"],
                "author": row["author"],
                "citations": len(row["citing"]),
                "cites": [cited for cited in row["references"] if cited in roles],
                "similarity": round(cosine(neighbours[row["id"]], around), 4),
                "roles": sorted(dict.fromkeys(roles[row["id"]]), key=ROLES.index),
            }
            for row in rows
        ]

    @router.post(
        "/export",
        summary="Papers as a BibTeX or RIS file, notes in the note field",
        response_class=Response,
        responses={200: {"content": {m: {} for m, _ in MEDIA.values()}}},
    )
    def export_(request: ExportRequest) -> Response:
        media, extension = MEDIA[request.format]
        text = export(store, request.format, list(dict.fromkeys(request.papers)), request.notes)
        return Response(
            text, media_type=media, headers={"content-disposition": f'attachment; filename="citegraph.{extension}"'}
        )

    return router
