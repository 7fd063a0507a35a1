"""The HTTP service: recommendations with their reasons, papers, their neighbourhoods, the
saved exploration queries — and the graph explorer page that uses them.

``citegraph serve`` (:mod:`.serving`) opens one :class:`~citegraph.recommend.Recommender`
(the graph and the text retrievers by name) and serves, on 127.0.0.1 unless told otherwise:

* ``POST /recommend`` — for a paper id, or a new paper's title and abstract (+ references
  already chosen, year, field, arXiv category), or a library (``papers``), with negatives,
  as of a date or new since one, the top ``k`` with their explanations, and (``why``) what
  became of papers the caller expected: rank, or the stage that dropped them;
* ``POST /explain`` — why one paper is (or is not) recommended for such a seed;
* ``POST /cite`` — for a context (``[CIT]`` marks the slot) or a draft's text (LaTeX,
  Markdown, text) with its BibTeX, each slot's top ``k`` with reasons (and ``why``, per slot);
* ``POST /works`` — a set's prior and derivative works;
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

The requests and answers are :mod:`citegraph.operations`' models, taken as they are (bodies,
query strings; a path holds a paper's id), and each route calls its operation: a route only
translates.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from pydantic import BaseModel, Field
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .. import __version__
from ..config import Config
from ..errors import CitegraphError, NotFoundError, ServerError
from ..operations import citing, exploring, papers, recommending
from ..operations.fields import PaperId, problem
from ..recommend import Recommender
from ..recommend.cite import CiteModel
from .explorer import explorer_routes
from .limits import LOOPBACK, BodyLimit, Unexpected
from .saved_queries import saved_query_routes

WEB = Path(str(resources.files("citegraph") / "web"))


class Error(BaseModel):
    detail: str


class Health(BaseModel):
    status: str = Field(description="ok, or unavailable (503) with the reason in detail")
    detail: str | None = None


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
    grow: Config | None = None,
) -> FastAPI:
    """The service over ``recommender`` (and its store); ``max_rows`` caps a saved query's
    rows; ``hosts`` are the accepted ``Host`` header names ("*" for any); ``cite_model``
    re-ranks ``/cite``'s suggestions; ``grow`` (the service's configuration) adds the explorer's
    ``POST /explore/grow``, which asks OpenAlex and Semantic Scholar (``citegraph serve --grow``)."""
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
        response_model=recommending.RecommendResponse,
        responses={**_NOT_FOUND, **_BODY},
        summary="Recommend citations for a paper id, a new paper's text or a library, with explanations",
    )
    def recommend(request: recommending.RecommendRequest) -> recommending.RecommendResponse:
        return recommending.recommend(recommender, request)

    @app.post(
        "/explain",
        response_model=recommending.Explanation,
        responses={**_NOT_FOUND, **_BODY},
        summary="Why one paper is (or is not) recommended for a seed: its rank, score, features and reasons",
    )
    def explain(request: recommending.ExplainRequest) -> recommending.Explanation:
        return recommending.explain(recommender, request)

    @app.post(
        "/cite",
        response_model=citing.CiteResponse,
        responses={**_NOT_FOUND, **_BODY},
        summary="Which paper to cite at each citation slot of a context or a draft, with reasons",
    )
    def cite(request: citing.CiteRequest) -> citing.CiteResponse:
        return citing.cite(recommender, request, cite_model)

    @app.post(
        "/works",
        response_model=exploring.WorksResponse,
        responses={**_NOT_FOUND, **_BODY},
        summary="Prior works (most cited by a set's neighbourhood) and derivative works (citing most of it)",
    )
    def works(request: exploring.WorksRequest) -> exploring.WorksResponse:
        return exploring.works(recommender, request)

    @app.get(
        "/paper/{id:path}",
        response_model=papers.Paper,
        responses=_NOT_FOUND,
        summary="One paper with its fields, categories, authors, citation counts and URL",
    )
    def paper(id: Annotated[PaperId, PathParam()]) -> papers.Paper:
        return papers.paper(store, papers.PaperRequest(id=id))

    @app.get(
        "/neighbours/{id:path}",
        response_model=papers.Neighbourhood,
        responses=_NOT_FOUND,
        summary="A paper's ego network: citations both ways, co-cited papers, fields, categories, ACM concepts",
    )
    def neighbours(
        id: Annotated[PaperId, PathParam()], query: Annotated[papers.NeighboursQuery, Query()]
    ) -> papers.Neighbourhood:
        request = papers.NeighboursRequest(id=id, **query.model_dump())
        return papers.neighbours(store, request, recommender.fanout)

    @app.get(
        "/search",
        response_model=list[papers.SearchHit],
        responses=_ERRORS,
        summary="Papers by exact id or by words of their title (most cited first)",
    )
    def search(request: Annotated[papers.SearchRequest, Query()]) -> list[papers.SearchHit]:
        return papers.search(store, request)

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

    app.include_router(explorer_routes(recommender, {**_ERRORS, **_BODY}, grow))

    @app.get("/", include_in_schema=False)
    def explorer() -> FileResponse:
        return FileResponse(WEB / "index.html")

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app
