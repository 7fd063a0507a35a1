"""The graph's papers: one paper's record, a paper's ego network, papers found by id or title
words — the requests, answers and functions for every door (``citegraph paper``, ``GET
/paper/{id}``, ``/neighbours/{id}``, ``/search``; the MCP tools ``paper``, ``neighbours`` and
``search_papers``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..errors import NotFoundError
from ..vocabulary import canonical_id
from .fields import NEIGHBOURS, SEARCH, TEXT, PaperId, not_blank

if TYPE_CHECKING:  # the driver loads with the first store, not with --help
    from ..graph import GraphStore


class PaperRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: PaperId


class Paper(BaseModel):
    """A paper as the graph has it, with the page its ids imply."""

    id: str
    title: str | None
    abstract: str | None
    year: int | None
    venue: str | None
    venue_type: str | None = Field(description="journal, conference, or null (not known)")
    doi: str | None
    arxiv_id: str | None
    url: str | None = Field(description="Its ACL Anthology page, else its arXiv abstract, else its DOI's")
    external: bool = Field(description="Cited, but not itself in the corpus (a stub)")
    eligible: bool | None
    citation_count: int | None
    references: int
    fields: list[str]
    categories: list[str]
    authors: list[str] = Field(description="In their source's order")


class NeighboursQuery(BaseModel):
    """What an ego network's request holds besides the paper (HTTP: the query string)."""

    model_config = ConfigDict(extra="forbid")

    limit: Annotated[int, Field(ge=NEIGHBOURS.low, le=NEIGHBOURS.high)] = Field(25, description="Papers of each kind")


class NeighboursRequest(NeighboursQuery):
    id: PaperId


class Neighbour(BaseModel):
    kind: str = Field(description="cites, cited_by, co_cited, field, category or acm")
    id: str
    title: str | None
    year: int | None
    citations: int | None
    external: bool
    weight: int = Field(description="co_cited: by how many papers; 1 otherwise")
    via: str | None = Field(description="acm: the arXiv category that maps to it")


class Neighbourhood(BaseModel):
    paper: Paper
    neighbours: list[Neighbour]


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    q: Annotated[
        str,
        Field(min_length=1, max_length=300, json_schema_extra={"pattern": TEXT}),
        AfterValidator(not_blank),
    ] = Field(description="A paper id, or words of its title")
    limit: Annotated[int, Field(ge=SEARCH.low, le=SEARCH.high)] = Field(20, description="Papers to return")


class SearchHit(BaseModel):
    id: str
    title: str | None
    year: int | None
    citations: int | None


def paper(store: GraphStore, request: PaperRequest) -> Paper:
    """The paper, or a NotFoundError naming the id."""
    from ..library.export import exported

    rows = store.run("paper", id=request.id)
    if not rows:
        raise NotFoundError(f"no paper with id {request.id!r} in the graph")
    urls = [url for found in exported(store, [request.id]) for url in found.urls]
    return Paper(**rows[0], url=urls[0] if urls else None)


def neighbours(store: GraphStore, request: NeighboursRequest, fanout: int) -> Neighbourhood:
    """The paper and its ego network: citations both ways, co-cited papers (through at most
    ``fanout`` citing papers), fields, arXiv categories and their ACM concepts."""
    found = paper(store, PaperRequest(id=request.id))
    rows = store.run("explore/ego", id=found.id, limit=request.limit, fanout=fanout)
    return Neighbourhood(paper=found, neighbours=[Neighbour(**row) for row in rows])


def search(store: GraphStore, request: SearchRequest) -> list[SearchHit]:
    """Papers by exact id, else by words of their title (every word), most cited first."""
    rows = store.run(
        "explore/search", id=canonical_id(request.q), words=request.q.lower().split()[:20], limit=request.limit
    )
    return [SearchHit(**row) for row in rows]
