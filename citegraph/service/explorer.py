"""The explorer's own routes, mounted by the HTTP service (:mod:`citegraph.service.http`) under
``/explore``: what the page needs beyond the API everyone uses.

* ``POST /explore/library`` — a pasted list of ids/DOIs or an uploaded ``.bib``/``.ris``/
  CSL-JSON file, read by the library's own parsers and matched to the graph (how, or why not);
* ``POST /explore/map`` — the papers to draw for a seed set, with the roles the page gave
  them (recommended, prior, derivative; from ``POST /recommend`` and ``POST /works``) and
  the ones found here (seed, reference, citing): year, first author, citations, similarity
  to the seeds, and the citations among them — the Litmaps-like map's coordinates;
* ``POST /explore/export`` — the page's current list as BibTeX or RIS, through the same
  writers as ``citegraph recommend --format``;
* ``POST /explore/grow`` — only when the service was started with ``citegraph serve --grow``:
  the pasted or uploaded library grown into the graph with OpenAlex and Semantic Scholar, as
  ``citegraph grow`` does (:mod:`citegraph.operations.growing`), before the page maps it.

Each route calls its operation (:mod:`citegraph.operations.exploring`), whose models it takes
and answers.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from ..config import Config
from ..operations import exploring, growing
from ..recommend import Recommender


def explorer_routes(
    recommender: Recommender, errors: dict[int | str, dict[str, Any]], grow: Config | None = None
) -> APIRouter:
    """The routes over ``recommender`` (its store, its matcher); ``errors`` the service's error
    responses (its handlers answer them); with ``grow`` (the service's configuration: its data
    folder, the APIs' URLs and keys) the route that grows the graph."""
    router = APIRouter(prefix="/explore", tags=["explorer"], responses=errors)
    store = recommender.store

    @router.post(
        "/library",
        response_model=exploring.LibraryMatches,
        summary="A pasted or uploaded library matched to the graph",
    )
    def library(request: exploring.LibraryText) -> exploring.LibraryMatches:
        return exploring.library(recommender, request)

    @router.post(
        "/map", response_model=list[exploring.MapPaper], summary="The papers to draw around a seed set, with roles"
    )
    def map_(request: exploring.MapRequest) -> list[exploring.MapPaper]:
        return exploring.map_papers(store, request)

    @router.post(
        "/export",
        summary="Papers as a BibTeX or RIS file, notes in the note field",
        response_class=Response,
        responses={200: {"content": {m: {} for m, _ in exploring.MEDIA.values()}}},
    )
    def export_(request: exploring.ExportRequest) -> Response:
        media, extension = exploring.MEDIA[request.format]
        return Response(
            exploring.export_papers(store, request),
            media_type=media,
            headers={"content-disposition": f'attachment; filename="citegraph.{extension}"'},
        )

    if grow is not None:
        config = grow

        @router.post(
            "/grow",
            response_model=growing.GrowAnswer,
            summary="A pasted or uploaded library grown into the graph with OpenAlex and Semantic Scholar",
        )
        def grow_(request: growing.GrowLibrary) -> growing.GrowAnswer:
            try:
                return growing.grow_library(request, config, store)
            finally:
                recommender.forget_graph()  # what it kept of the graph before it grew

    return router
