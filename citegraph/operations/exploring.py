"""Exploring a set of papers: its prior and derivative works, a library matched to the graph,
the map drawn around it, its papers as a reference-manager file — the requests, answers and
functions of ``citegraph works``, ``POST /works`` and the explorer page's ``/explore`` routes,
and the MCP tool ``works``.

A door that reads library files (the command line's ``works --library FILE``) hands their
entries to :func:`works` beside the request's ids.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..errors import CitegraphError, NotFoundError
from ..library.entries import LibraryEntry
from ..vocabulary import canonical_id, year_of
from .answers import MatchOut
from .fields import AS_OF_TEXT, MAX_IDS, Date, Id, K, integer

if TYPE_CHECKING:  # the driver loads with the first recommender, not with --help
    from ..graph import GraphStore
    from ..recommend import Recommender

ROLES = ("seed", "recommended", "prior", "derivative", "reference", "citing")  # the first a paper has colours it
AROUND = 12  # references and citing papers drawn per seed (most cited first)
Stored = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(canonical_id)]  # an id as stored
MEDIA = {"bibtex": ("application/x-bibtex", "bib"), "ris": ("application/x-research-info-systems", "ris")}


class WorksRequest(BaseModel):
    # papers are required of a sender (the schema says so); a door that reads library files
    # leaves them out and hands over the files' entries (pydantic does not validate the default)
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"required": ["papers"]})

    papers: list[Id] = Field([], min_length=1, max_length=MAX_IDS, description="The set: paper ids, DOIs or arXiv ids")
    as_of: Date | None = Field(None, description=AS_OF_TEXT)
    k: Annotated[int, *integer(K)] = Field(20, description="Papers per list")


class Work(BaseModel):
    id: str
    title: str
    year: int | None
    links: int = Field(description="Papers of the set's neighbourhood citing it (prior) or cited by it (derivative)")


class WorksResponse(BaseModel):
    prior: list[Work] = Field(description="The papers most cited by the set's neighbourhood")
    derivative: list[Work] = Field(description="The papers citing most of the set's neighbourhood")
    matches: list[MatchOut]


class LibraryText(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(
        "pasted.txt",
        min_length=1,
        max_length=200,
        description="The file's name: its extension "
        "(.bib, .ris, .json; anything else: one id, DOI or arXiv id a line) says how to read it",
    )
    text: str = Field(min_length=1, description="The library (bounded by the service's 1 MiB body limit, answered 413)")


class LibraryMatches(BaseModel):
    papers: list[str] = Field(description="The graph papers matched, in the library's order (maybe none)")
    matches: list[MatchOut] = Field(description="Each entry: where it is, the paper it matched (or null), how")


class MapRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    seeds: list[Stored] = Field(min_length=1, max_length=500)
    recommended: list[Stored] = Field([], max_length=200, description="From POST /recommend")
    prior: list[Stored] = Field([], max_length=200, description="From POST /works")
    derivative: list[Stored] = Field([], max_length=200, description="From POST /works")
    as_of: Date | None = Field(None, description="Only citations made by then (YYYY-MM-DD; by year)")


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

    papers: list[Stored] = Field(min_length=1, max_length=MAX_IDS)
    notes: dict[str, Annotated[str, Field(max_length=5_000)]] = Field(
        {}, max_length=MAX_IDS, description="A note per paper (why it is listed)"
    )
    format: Literal["bibtex", "ris"]


def works(recommender: Recommender, request: WorksRequest, papers: Sequence[LibraryEntry] = ()) -> WorksResponse:
    """Prior works (most cited by the set's neighbourhood) and derivative works (citing most of
    it); ``papers``: entries a door read from files, matched with the request's ids."""
    from ..library.match import matched_ids
    from ..library.works import prior_and_derivative

    given: list[str | LibraryEntry] = [*request.papers, *papers]
    if not given:
        raise CitegraphError("give papers: the set whose works to list")
    matches = recommender.match(given)
    ids = matched_ids(matches)
    if not ids:
        raise NotFoundError("no paper of the library is in the graph")
    found = prior_and_derivative(
        recommender.store, ids, as_of=year_of(request.as_of), k=request.k, fanout=recommender.fanout
    )
    return WorksResponse(
        prior=[Work(id=w.id, title=w.title, year=w.year, links=w.links) for w in found["prior"]],
        derivative=[Work(id=w.id, title=w.title, year=w.year, links=w.links) for w in found["derivative"]],
        matches=[MatchOut.of(m) for m in matches],
    )


def library(recommender: Recommender, request: LibraryText) -> LibraryMatches:
    """A pasted or uploaded library, read by the library's own parsers, matched to the graph."""
    from ..library.entries import parse_library
    from ..library.match import matched_ids

    found = recommender.match(parse_library(request.text, Path(request.name).name))
    return LibraryMatches(papers=matched_ids(found), matches=[MatchOut.of(m) for m in found])


def cosine(a: set[str], b: set[str]) -> float:
    """The cosine of two sets as binary vectors: shared members over the geometric mean of
    the sizes (0 for an empty set) — direct links, shared references and shared citing
    papers count alike when ``a`` is a paper's neighbourhood and ``b`` the seeds' with them."""
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def map_papers(store: GraphStore, request: MapRequest) -> list[MapPaper]:
    """The papers to draw for a seed set, with the roles the page gave them and the ones found
    here (seed, reference, citing): year, first author, citations, similarity to the seeds,
    and the citations among them — the Litmaps-like map's coordinates."""
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
        MapPaper(
            id=row["id"],
            title=row["title"],
            year=row["year"],
            author=row["author"],
            citations=len(row["citing"]),
            cites=[cited for cited in row["references"] if cited in roles],
            similarity=round(cosine(neighbours[row["id"]], around), 4),
            roles=sorted(dict.fromkeys(roles[row["id"]]), key=ROLES.index),
        )
        for row in rows
    ]


def export_papers(store: GraphStore, request: ExportRequest) -> str:
    """The papers as a BibTeX or RIS file, the notes in the note field (the writers of
    ``citegraph recommend --format``)."""
    from ..library.export import export

    return export(store, request.format, list(dict.fromkeys(request.papers)), request.notes)
