"""``citegraph mcp``: the graph and the recommender as Model Context Protocol tools, for AI
agents, over stdio (the official ``mcp`` SDK; the ``[mcp]`` extra).

Tools: ``search_papers``, ``paper``, ``neighbours``, ``recommend`` (a paper, a new paper's
text, or a library of ids / DOIs / arXiv ids; negatives, as of a date, k),
``explain_recommendation`` (why — or why not — one paper for a seed), ``cite`` (which paper
to cite at each citation slot of a sentence or a draft's text, as ``citegraph cite``) and
``contextualise_citation`` (which sentences of a cited paper a citing sentence refers to).
Arguments are typed (the SDK checks them against the schema; one that does not fit is a tool
error of one line naming the field); an error the user can act on (:class:`CitegraphError`: an
unknown id, …) is returned as a tool error with its message, never as a crash. stdout carries the protocol: everything else goes to stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TextIO, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import AfterValidator, Field, ValidationError

from ..errors import CitegraphError
from ..library.draft import MAX_CONTEXT_CHARS, MAX_SENT_SLOTS, MAX_SENT_TEXT
from ..recommend import Recommender, Seed, View, recommendation_dict
from ..recommend.cite import CiteModel, sent_draft
from ..recommend.cite import cite as cite_draft
from ..vocabulary import DATE, calendar_date, canonical_id, year_of
from .limits import NEIGHBOURS, SEARCH, WINDOW, K, problem

if TYPE_CHECKING:
    from anyio import AsyncFile

Ids = Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]], Field(max_length=2_000)]
Id = Annotated[str, Field(min_length=1, max_length=200, description="A paper id in the graph")]
Date = Annotated[
    Annotated[str, Field(json_schema_extra={"pattern": DATE}), AfterValidator(calendar_date)] | None,
    Field(description="YYYY-MM-DD: nothing published later, no later citation as evidence"),
]


def create_server(recommender: Recommender, indexes: Path, cite_model: CiteModel | None = None):
    """The MCP server over ``recommender`` (its store answers the graph tools); ``indexes``
    holds the contextualisation models' word statistics (built on first use); ``cite_model``
    re-ranks the ``cite`` tool's suggestions."""
    from .. import __version__

    store = recommender.store
    server = _Server(
        "citegraph",
        version=__version__,
        instructions=(
            "A citation graph with a recommender. Find papers with search_papers, read them with paper and "
            "neighbours, ask recommend for papers to cite (for a paper, a text, or a set of papers), and "
            "explain_recommendation for the graph paths behind one."
        ),
    )

    def tool(function):
        """A tool whose CitegraphError reaches the agent as a tool error with its message."""
        import functools

        @functools.wraps(function)
        def run(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except CitegraphError as exc:
                raise ToolError(str(exc)) from exc

        return server.tool()(run)

    def seed_of(
        paper: str | None, papers: list[str], title: str, abstract: str, negatives: list[str], as_of: str | None
    ) -> tuple[Seed, list[dict]]:
        asked = recommender.ask(
            paper, papers=papers, title=title, abstract=abstract, negatives=negatives, view=View(as_of=year_of(as_of))
        )
        return asked.seed, [m.as_dict() for m in asked.matches]

    @tool
    def search_papers(
        query: Annotated[str, Field(min_length=1, max_length=300, description="A paper id or words of its title")],
        limit: Annotated[int, Field(ge=SEARCH.low, le=SEARCH.high)] = 10,
    ) -> list[dict[str, Any]]:
        """Papers by exact id or by words of their title, most cited first."""
        if not query.strip():
            raise CitegraphError("the query is blank")
        return store.run("explore/search", id=canonical_id(query), words=query.lower().split()[:20], limit=limit)

    @tool
    def paper(id: Id) -> dict[str, Any]:
        """One paper: title, abstract, year, venue, authors, fields, categories, citation counts."""
        rows = store.run("paper", id=canonical_id(id))
        if not rows:
            raise CitegraphError(f"no paper with id {id!r} in the graph")
        return rows[0]

    @tool
    def neighbours(
        id: Id,
        limit: Annotated[int, Field(ge=NEIGHBOURS.low, le=NEIGHBOURS.high, description="Papers of each kind")] = 25,
    ) -> list[dict[str, Any]]:
        """A paper's ego network: what it cites, what cites it, papers co-cited with it, its fields and categories."""
        return store.run("explore/ego", id=paper(id)["id"], limit=limit, fanout=recommender.fanout)

    @tool
    def recommend(
        paper: Annotated[str | None, Field(max_length=200, description="A paper id in the graph")] = None,
        papers: Annotated[Ids, Field(description="A library: paper ids, DOIs or arXiv ids")] = [],  # noqa: B006
        title: Annotated[str, Field(max_length=2_000)] = "",
        abstract: Annotated[str, Field(max_length=20_000)] = "",
        negatives: Annotated[Ids, Field(description="Papers not wanted (ids, DOIs, arXiv ids)")] = [],  # noqa: B006
        as_of: Date = None,
        k: Annotated[int, Field(ge=K.low, le=K.high)] = 10,
    ) -> dict[str, Any]:
        """Papers to cite for a paper, a new paper's title/abstract, or a set of papers, each with
        the reasons (graph paths such as "cited by 3 of your papers: A, B, C")."""
        seed, matches = seed_of(paper, papers, title, abstract, negatives, as_of)
        return {
            "recommendations": [recommendation_dict(r) for r in recommender.recommend_for(seed, k)],
            "matches": matches,
        }

    @tool
    def explain_recommendation(
        candidate: Id,
        paper: Annotated[str | None, Field(max_length=200)] = None,
        papers: Ids = [],  # noqa: B006
        title: Annotated[str, Field(max_length=2_000)] = "",
        abstract: Annotated[str, Field(max_length=20_000)] = "",
        negatives: Ids = [],  # noqa: B006
        as_of: Date = None,
    ) -> dict[str, Any]:
        """Why one paper is (or is not) recommended for a seed: its rank, score, features and reasons."""
        seed, _ = seed_of(paper, papers, title, abstract, negatives, as_of)
        candidates = recommender.candidates(seed)
        if candidate not in candidates:
            return {
                "candidate": candidate,
                "candidate_found": False,
                "why_not": "not a candidate: not linked to the seed in the graph nor among the text matches, "
                "or excluded (already cited, a seed, newer than the seed or the as-of date)",
            }
        ranking = recommender.weights.rank(candidates, len(candidates))
        [(rank, hit)] = [(i, h) for i, h in enumerate(ranking, start=1) if h.id == candidate]
        found = candidates[candidate]
        return {
            "candidate": candidate,
            "candidate_found": True,
            "title": found.facts.title if found.facts else None,
            "rank": rank,
            "of": len(ranking),
            "score": round(hit.score, 6),
            "features": found.features,
            "explanation": [s.text for s in found.signals],
        }

    @tool
    def cite(
        context: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=MAX_CONTEXT_CHARS,
                description=("The sentence being written, the slot marked [CIT]"),
            ),
        ] = None,
        draft: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=MAX_SENT_TEXT,
                description=(
                    f"A draft's text (LaTeX, Markdown or text), at most {MAX_SENT_SLOTS} citation slots; "
                    "it may not name files (send the bibliography as bib)"
                ),
            ),
        ] = None,
        format: Literal["latex", "markdown", "text"] = "latex",
        bib: Annotated[str | None, Field(max_length=MAX_SENT_TEXT, description="The bibliography's BibTeX")] = None,
        window: Annotated[int, Field(ge=WINDOW.low, le=WINDOW.high)] = 1,
        as_of: Date = None,
        k: Annotated[int, Field(ge=K.low, le=K.high)] = 10,
    ) -> dict[str, Any]:
        """Which paper to cite at each citation slot of a sentence ([CIT]) or a draft (empty or '?'
        \\cite keys, [@?], [CIT]): per slot, its place and the top k papers with the reasons; the
        draft's references seed the graph side and are never suggested."""
        found = cite_draft(
            recommender,
            sent_draft(context=context, draft=draft, format=format, bib=bib, window=window),
            k=k,
            as_of=year_of(as_of),
            model=cite_model,
        )
        return found.as_dict()

    @tool
    def contextualise_citation(
        cited: Id,
        citing_text: Annotated[str, Field(min_length=1, max_length=5_000, description="The citing sentence")],
        k: Annotated[int, Field(ge=1, le=20)] = 3,
    ) -> list[dict[str, Any]]:
        """The sentences of the cited paper (title, abstract) that a citing sentence most likely refers to."""
        from ..contextualise import on_graph
        from ..contextualise.models import MODELS

        model = MODELS["lmd"]
        resources = on_graph.graph_resources(store, model, indexes / "contextualise")
        [found] = on_graph.contextualise(
            on_graph.cited_reference(store, cited), [on_graph.CitingText(citing_text)], model, resources, k
        )
        return [{"rank": e.rank, "sentence": e.sid, "score": e.score, "text": e.text} for e in found.evidence]

    return server


class _Server(MCPServer):
    """The SDK's server, whose refusal of a tool's arguments is one line naming each field: the
    SDK passes on pydantic's text (a line per error, the input echoed, a documentation URL)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            invalid = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(invalid, ValidationError):
                raise
            fields = "; ".join(dict.fromkeys(problem(e) for e in invalid.errors(include_url=False)))
            raise ToolError(f"Error executing tool {name}: {fields}") from invalid


def serve_mcp(config, retrievers, model: Path | None = None, cite_model: Path | None = None) -> None:
    """Open the recommender on ``config``'s graph and answer MCP requests on stdin/stdout until closed."""
    import anyio

    protocol = _protocol_stdout()
    with Recommender.open(config, retrievers, model) as recommender:
        reranker = CiteModel(cite_model, recommender, config.data_folder("embeddings")) if cite_model else None
        server = create_server(recommender, Path(config.data_dir) / "indexes", reranker)
        anyio.run(_serve_stdio, server, protocol)


def _protocol_stdout() -> TextIO:
    """The JSON-RPC stream on a copy of file descriptor 1, and fd 1 itself pointed at stderr:
    whatever else writes to fd 1 — a library's print, the first lines of a crashing JVM's
    report (HotSpot writes them there whatever its options) — reaches stderr, never the client."""
    import os
    import sys

    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    return protocol


async def _serve_stdio(server, protocol: TextIO) -> None:
    """The SDK's stdio transport, with every line that is not a JSON-RPC 2.0 message
    answered with the JSON-RPC error for it: the SDK's transport only logs such a line, so a
    client waiting for its answer would wait forever. (stdin is read here, so the SDK does
    not point fd 0 at /dev/null while serving: no tool reads stdin.)"""
    import sys

    import anyio
    from mcp.server.stdio import stdio_server

    stdin = _CheckedLines(anyio.wrap_file(open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)))
    # the SDK only iterates stdin's lines: _CheckedLines is such an iterable, not a file
    async with stdio_server(stdin=cast("AsyncFile[str]", stdin), stdout=anyio.wrap_file(protocol)) as (
        read_stream,
        write_stream,
    ):
        stdin.answers = write_stream
        lowlevel = server._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


class _CheckedLines:
    """The lines of stdin that are JSON-RPC messages, read as the SDK reads them; each other
    line is answered on ``answers`` with a parse error (-32700: not JSON, or nested past the
    parser's depth limit) or an invalid request (-32600: a batch array, another ``jsonrpc``
    version, no ``method``...), with the request's id where one can be read. An unknown
    method is a valid request, which the SDK answers (-32601)."""

    def __init__(self, lines):
        self.lines = lines
        self.answers = None

    async def __aiter__(self):
        import mcp_types as types
        from mcp.shared.message import SessionMessage
        from pydantic import ValidationError

        async for line in self.lines:
            if not line.strip():
                continue
            try:
                types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValidationError as invalid:
                request_id, error = _refusal(invalid, line)
                await self.answers.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))
                continue
            yield line


def _refusal(invalid, line: str) -> tuple[str | int | None, Any]:
    """The id (where the line gives a valid one) and the JSON-RPC error for a line the SDK's
    message model refused."""
    import json

    import mcp_types as types

    first = invalid.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        return None, types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {first['msg']}"[:300])
    value = json.loads(line)  # the SDK's parser, whose depth limit is lower than json's, read it
    given = value.get("id") if isinstance(value, dict) else None
    request_id = given if isinstance(given, (str, int)) and not isinstance(given, bool) else None
    if isinstance(value, list):
        why = "a batch (a JSON array): send one message a line"
    elif not isinstance(value, dict):
        why = f"expected a JSON object, got {type(value).__name__}"
    elif value.get("jsonrpc") != "2.0":
        why = 'expected "jsonrpc": "2.0"'
    elif not {"method", "result", "error"} & set(value):
        why = "no method"
    else:
        why = "; ".join(f"{'.'.join(map(str, e['loc'][1:]))}: {e['msg']}" for e in invalid.errors()[:3])
    return request_id, types.ErrorData(code=types.INVALID_REQUEST, message=f"Invalid request: {why}"[:300])
