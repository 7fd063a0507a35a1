"""The HTTP service: recommendations with their reasons, papers, their neighbourhoods, the
saved exploration queries — and the graph explorer page that uses them.

``citegraph serve`` (:mod:`.serving`) opens one :class:`~citegraph.recommend.Recommender`
(the graph and the text retrievers by name) and serves, on 127.0.0.1 unless told otherwise:

* ``POST /recommend`` — for a paper id, or a new paper's title and abstract (+ references
  already chosen, year, field, arXiv category), or a library (``papers``), with negatives
  and as of a date, the top ``k`` with their explanations;
* ``POST /cite`` — for a context (``[CIT]`` marks the slot) or a draft's text (LaTeX,
  Markdown, text) with its BibTeX, each slot's top ``k`` with reasons (:mod:`.cite`);
* ``GET /paper/{id}``, ``GET /neighbours/{id}`` (its ego network: citations both ways,
  co-cited papers, fields, arXiv categories and their ACM concepts), ``GET /search``;
* ``GET /queries`` and ``POST /queries/{name}`` — the saved Neo4j Browser queries
  (``cypher/browser/``), run with typed parameters (:mod:`.saved_queries`);
* ``/`` — the explorer (static files in ``citegraph/web``, cytoscape.js vendored: no CDN);
  ``/docs`` and ``/openapi.json`` — the API.

* ``GET /health`` — 200 while the graph answers, else 503 with the reason at once (an
  embedded graph server that died is reported, not waited for; ``serve`` restarts it).

Bad input is answered with a 4xx and a one-line ``detail``: an unknown id 404, a body over
1 MiB 413 (counted while it is read, so a chunked body without ``Content-Length`` is cut
off too), a body that is not JSON 400, anything else that does not fit the schema (empty
text, huge lists, wrong types, unknown fields) 422 naming the field. A ``Host`` header
other than a loopback name is refused (400) unless ``--host`` serves another interface:
a web page cannot reach the service by DNS rebinding. Routes are plain functions: FastAPI runs them in its
thread pool, so a slow graph call holds one worker thread, never the event loop (the
driver is thread-safe; the recommender keeps text search on a thread of its own).
Nothing is serialised on one session: each graph call takes its own session from the
driver's connection pool, and waiting on the graph server or Lucene releases the GIL.
(Over 400 lines: the request and response models sit beside the routes whose OpenAPI
schema they are.)
"""

from __future__ import annotations

import re
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    model_validator,
)
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .. import __version__
from ..errors import CitegraphError, NotFoundError, ServerError
from ..library.match import matched_ids
from ..library.works import prior_and_derivative
from ..recommend import Recommender, View, recommendation_dict
from ..recommend.cite import CiteModel
from ..vocabulary import canonical_id, year_of
from .cite import cite_routes
from .explorer import AsOf, MatchOut, RecommendationOut, explorer_routes
from .limits import LOOPBACK, NEIGHBOURS, SEARCH, YEAR, BodyLimit, K, Unexpected, problem
from .saved_queries import saved_query_routes

WEB = Path(str(resources.files("citegraph") / "web"))

PaperId = Annotated[str, PathParam(min_length=1, max_length=200, description="A paper id in the graph")]
Text = Annotated[str, Field(max_length=200)]


class Error(BaseModel):
    detail: str


# A character that is not whitespace as Python's str.strip() sees it (the recommender
# strips texts), spelled so that JSON Schema's regex dialect reads it the same way.
TEXT = "[^\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"


def _not_blank(text: str) -> str:
    if not re.search(TEXT, text):
        raise ValueError("blank: give some text, or leave the field out")
    return text


def _whole(value: Any) -> Any:
    """51.0 is the integer 51 to JSON Schema; strict validation still refuses "51" and true."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _integer(low: int, high: int) -> tuple[Any, ...]:
    """An integer in [low, high] (the bounds before the validator, or the schema loses them)."""
    return Field(ge=low, le=high), BeforeValidator(_whole)


def _given(max_length: int, description: str) -> tuple[Any, ...]:
    """A text field that may be left out but, when present, holds text: the schema says so
    (pattern), the check says it clearly."""
    return (
        Field(None, max_length=max_length, description=description),
        AfterValidator(_not_blank),
        WithJsonSchema({"type": "string", "pattern": TEXT, "maxLength": max_length, "description": description}),
    )


class RecommendRequest(BaseModel):
    """A paper of the graph (``paper``), a new one (``title`` and/or ``abstract``), or a
    library (``papers``: ids, DOIs, arXiv ids, matched to the graph)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "anyOf": [
                {"required": ["paper"]},
                {"required": ["title"]},
                {"required": ["abstract"]},
                {"required": ["papers"]},
            ],
            "not": {
                "anyOf": [{"required": ["papers", one]} for one in ("paper", "title", "abstract", "references", "year")]
            },
        },
    )

    paper: Annotated[str, *_given(200, "A paper id in the graph (its text, year and references come from the graph)")]
    title: Annotated[str, *_given(2_000, "A new paper's title")]
    abstract: Annotated[str, *_given(20_000, "A new paper's abstract")]
    references: list[Text] = Field([], max_length=2_000, description="Papers already cited (ids in the graph)")
    year: Annotated[int, *_integer(YEAR.low, YEAR.high)] | None = Field(
        None, description="Recommend nothing newer (default for a paper: its year)"
    )
    field: Text | None = Field(None, description="Only papers of this MAG field")
    category: Text | None = Field(None, description="Only papers of this arXiv category, e.g. cs.CL")
    k: Annotated[int, *_integer(K.low, K.high)] = 20
    explain: bool = Field(True, description="Include each recommendation's signals and explanation")
    # not nullable, only optional: pydantic does not validate the default (and its stubs want a list)
    papers: list[Text] = Field(
        None,  # type: ignore[arg-type]
        min_length=1,
        max_length=2_000,
        description="A library to recommend for: paper ids, DOIs or arXiv ids (instead of paper, title, abstract)",
    )
    negatives: list[Text] = Field(
        [], max_length=2_000, description="Papers not wanted (ids, DOIs, arXiv ids): their neighbours are pushed down"
    )
    as_of: AsOf | None = Field(
        None,
        description="Recommend as of "
        "this date (YYYY-MM-DD): nothing published later, no later citation as evidence "
        "(the graph dates papers by year)",
    )

    @model_validator(mode="after")
    def _something_to_recommend_for(self) -> RecommendRequest:
        given = [name for name in ("paper", "title", "abstract") if getattr(self, name) is not None]
        if self.papers is not None and (mixed := given + sorted({"references", "year"} & self.model_fields_set)):
            raise ValueError(f"give papers (a library) or {mixed[0]}, not both")
        if self.papers is None and not given:
            raise ValueError("give a paper id, or a title and/or an abstract, or papers")
        return self


class SeedOut(BaseModel):
    id: str
    title: str
    year: int | None
    references: list[str]


class WorksRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    papers: list[Text] = Field(min_length=1, max_length=2_000, description="The set: paper ids, DOIs or arXiv ids")
    as_of: AsOf | None = Field(None, description="Only citations made by then (YYYY-MM-DD; by year)")
    k: Annotated[int, *_integer(K.low, K.high)] = 20


class Work(BaseModel):
    id: str
    title: str
    year: int | None
    links: int


class WorksResponse(BaseModel):
    prior: list[Work] = Field(description="The papers most cited by the set's neighbourhood")
    derivative: list[Work] = Field(description="The papers citing most of the set's neighbourhood")
    matches: list[MatchOut]


class RecommendResponse(BaseModel):
    seed: SeedOut
    recommendations: list[RecommendationOut]
    matches: list[MatchOut] = Field([], description="How the library's papers and the negatives were matched")
    ignored_references: list[str] = Field([], description="Given references that are not papers of the graph")


class Health(BaseModel):
    status: str = Field(description="ok, or unavailable (503) with the reason in detail")
    detail: str | None = None


class Paper(BaseModel):
    id: str
    title: str | None
    abstract: str | None
    year: int | None
    venue: str | None
    external: bool
    eligible: bool | None
    citation_count: int | None
    references: int
    fields: list[str]
    categories: list[str]
    authors: list[str]


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


class SearchHit(BaseModel):
    id: str
    title: str | None
    year: int | None
    citations: int | None


_ERRORS: dict[int | str, dict[str, Any]] = {422: {"model": Error, "description": "Invalid input"}}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": Error, "description": "Not in the graph"}, **_ERRORS}
_BODY: dict[int | str, dict[str, Any]] = {
    400: {"model": Error, "description": "Unreadable body"},
    413: {"model": Error, "description": "Request body over 1 MiB"},
}


def create_app(
    recommender: Recommender,
    *,
    max_rows: int = 1000,
    hosts: tuple[str, ...] = LOOPBACK,
    cite_model: CiteModel | None = None,
) -> FastAPI:
    """The service over ``recommender`` (and its store); ``max_rows`` caps a saved query's
    rows; ``hosts`` are the accepted ``Host`` header names ("*" for any); ``cite_model``
    re-ranks ``/cite``'s suggestions."""
    store = recommender.store
    app = FastAPI(
        title="citegraph",
        version=__version__,
        description="Citation recommendation from a citation graph and text scorers, with "
        "explanations; the graph's papers and neighbourhoods; saved exploration queries. "
        "The graph explorer is at /.",
    )
    app.add_middleware(Unexpected)  # innermost: what no handler answered
    app.add_middleware(BodyLimit)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        unreadable = any(e.get("type") == "json_invalid" for e in exc.errors())
        return JSONResponse(
            {"detail": "; ".join(problem(e) for e in exc.errors())}, status_code=400 if unreadable else 422
        )

    @app.exception_handler(NotFoundError)
    async def _missing(request: Request, exc: NotFoundError):
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(CitegraphError)
    async def _refused(request: Request, exc: CitegraphError):
        return JSONResponse({"detail": str(exc)}, status_code=503 if isinstance(exc, ServerError) else 422)

    @app.exception_handler(ServiceUnavailable)
    @app.exception_handler(SessionExpired)
    async def _unreachable(request: Request, exc: Exception):
        return JSONResponse({"detail": f"the graph is unreachable: {exc}"}, status_code=503)

    @app.post(
        "/recommend",
        response_model=RecommendResponse,
        responses={**_NOT_FOUND, **_BODY},
        summary="Recommend citations for a paper id or a new paper's text, with explanations",
    )
    def recommend(request: RecommendRequest) -> dict:
        asked = recommender.ask(
            request.paper,
            papers=request.papers or (),
            title=request.title or "",
            abstract=request.abstract or "",
            references=request.references,
            year=request.year,
            negatives=request.negatives,
            view=View(as_of=year_of(request.as_of), field=request.field, category=request.category),
        )
        seed = asked.seed
        given = [canonical_id(r) for r in request.references]  # a paper's own and a library's are known
        known = {row["id"] for row in store.run("explore/known_ids", ids=given)} if given else set()
        found = recommender.recommend_for(seed, request.k)
        out = []
        for r in found:
            row = recommendation_dict(r)
            out.append(row if request.explain else {k: row[k] for k in ("id", "title", "year", "score")})
        return {
            "seed": {"id": seed.id, "title": seed.title, "year": seed.year, "references": list(seed.references)},
            "recommendations": out,
            "ignored_references": [r for r in given if r not in known],
            "matches": [m.as_dict() for m in asked.matches],
        }

    @app.post(
        "/works",
        response_model=WorksResponse,
        responses={**_NOT_FOUND, **_BODY},
        summary="Prior works (most cited by a set's neighbourhood) and derivative works (citing most of it)",
    )
    def works(request: WorksRequest) -> dict:
        matches = recommender.match(request.papers)
        ids = matched_ids(matches)
        if not ids:
            raise NotFoundError("no paper of the library is in the graph")
        found = prior_and_derivative(store, ids, as_of=year_of(request.as_of), k=request.k, fanout=recommender.fanout)
        return {
            **{kind: [asdict(w) for w in ws] for kind, ws in found.items()},
            "matches": [m.as_dict() for m in matches],
        }

    @app.get(
        "/paper/{paper_id:path}",
        response_model=Paper,
        responses=_NOT_FOUND,
        summary="One paper with its fields, categories, authors and citation counts",
    )
    def paper(paper_id: PaperId) -> dict:
        return _paper(store, paper_id)

    @app.get(
        "/neighbours/{paper_id:path}",
        response_model=Neighbourhood,
        responses=_NOT_FOUND,
        summary="A paper's ego network: citations both ways, co-cited papers, fields, categories, ACM concepts",
    )
    def neighbours(
        paper_id: PaperId,
        limit: Annotated[int, Query(ge=NEIGHBOURS.low, le=NEIGHBOURS.high, description="Papers of each kind")] = 25,
    ) -> dict:
        found = _paper(store, paper_id)
        return {
            "paper": found,
            "neighbours": store.run("explore/ego", id=found["id"], limit=limit, fanout=recommender.fanout),
        }

    @app.get(
        "/search",
        response_model=list[SearchHit],
        responses=_ERRORS,
        summary="Papers by exact id or by words of their title (most cited first)",
    )
    def search(
        q: Annotated[
            str,
            Query(
                min_length=1, max_length=300, description="An id or title words", json_schema_extra={"pattern": TEXT}
            ),
            AfterValidator(_not_blank),
        ],
        limit: Annotated[int, Query(ge=SEARCH.low, le=SEARCH.high)] = 20,
    ) -> list[dict]:
        return store.run("explore/search", id=canonical_id(q), words=q.lower().split()[:20], limit=limit)

    app.include_router(saved_query_routes(store, max_rows, {**_NOT_FOUND, **_BODY}))

    @app.get(
        "/health",
        response_model=Health,
        responses={503: {"model": Health, "description": "The graph is unavailable"}},
        summary="Whether the graph answers (503 with the reason, at once, when it does not)",
    )
    def health():
        reason = store.health()
        if reason:
            return JSONResponse({"status": "unavailable", "detail": reason}, status_code=503)
        return {"status": "ok", "detail": None}

    app.include_router(explorer_routes(store, recommender.match, {**_ERRORS, **_BODY}))
    app.include_router(cite_routes(recommender, cite_model, {**_NOT_FOUND, **_BODY}))

    @app.get("/", include_in_schema=False)
    def explorer() -> FileResponse:
        return FileResponse(WEB / "index.html")

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


def _paper(store, paper_id: str) -> dict:
    paper_id = canonical_id(paper_id)
    rows = store.run("paper", id=paper_id)
    if not rows:
        raise NotFoundError(f"no paper with id {paper_id!r} in the graph")
    return rows[0]
