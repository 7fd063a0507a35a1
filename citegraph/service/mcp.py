"""``citegraph mcp``: the graph and the recommender as Model Context Protocol tools, for AI
agents, over stdio (the official ``mcp`` SDK; the ``[mcp]`` extra).

Tools: ``search_papers``, ``paper``, ``neighbours``, ``recommend`` (a paper, a new paper's
text, or a library of ids / DOIs / arXiv ids; negatives, as of a date, k),
``explain_recommendation`` (why — or why not — one paper for a seed), ``cite`` (which paper
to cite at each citation slot of a sentence or a draft's text, as ``citegraph cite``),
``works`` (a set's prior and derivative works) and ``contextualise_citation`` (which
sentences of a cited paper a citing sentence refers to). Each tool takes its operation's
request (:mod:`citegraph.operations`): its input schema is the request's JSON schema, the
arguments are validated by the request model itself (one that does not fit is a tool error of
one line naming the field), and it answers the operation's model. An error the user can act
on (:class:`CitegraphError`: an unknown id, …) is returned as a tool error with its message,
never as a crash. stdout carries the protocol: everything else goes to stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from pydantic import BaseModel, ValidationError

from ..errors import CitegraphError
from ..operations import citing, contextualising, exploring, papers, recommending
from ..operations.fields import problem
from ..recommend import Recommender
from ..recommend.cite import CiteModel
from .stdio import protocol_stdout

if TYPE_CHECKING:
    from anyio import AsyncFile


def create_server(recommender: Recommender, indexes: Path, cite_model: CiteModel | None = None):
    """The MCP server over ``recommender`` (its store answers the graph tools); ``indexes``
    holds the contextualisation model's word statistics (built on first use); ``cite_model``
    re-ranks the ``cite`` tool's suggestions."""
    from .. import __version__

    store = recommender.store
    tools = [
        operation_tool(
            "search_papers",
            "Papers by exact id or by words of their title, most cited first.",
            papers.SearchRequest,
            list[papers.SearchHit],
            lambda request: papers.search(store, request),
        ),
        operation_tool(
            "paper",
            "One paper: title, abstract, year, venue, authors, fields, categories, citation counts, URL.",
            papers.PaperRequest,
            papers.Paper,
            lambda request: papers.paper(store, request),
        ),
        operation_tool(
            "neighbours",
            "A paper and its ego network: what it cites, what cites it, papers co-cited with it, its fields "
            "and categories.",
            papers.NeighboursRequest,
            papers.Neighbourhood,
            lambda request: papers.neighbours(store, request, recommender.fanout),
        ),
        operation_tool(
            "recommend",
            "Papers to cite for a paper, a new paper's title/abstract, or a set of papers, each with the "
            'reasons (graph paths such as "cited by 3 of your papers: A, B, C"); why: papers you expected, '
            "each with its rank or the stage that dropped it.",
            recommending.RecommendRequest,
            recommending.RecommendResponse,
            lambda request: recommending.recommend(recommender, request),
        ),
        operation_tool(
            "explain_recommendation",
            "Why one paper is (or is not) recommended for a seed: its rank, score, features and reasons.",
            recommending.ExplainRequest,
            recommending.Explanation,
            lambda request: recommending.explain(recommender, request),
        ),
        operation_tool(
            "cite",
            "Which paper to cite at each citation slot of a sentence ([CIT]) or a draft (empty or '?' "
            "\\cite keys, [@?], [CIT]): per slot, its place and the top k papers with the reasons; the "
            "draft's references seed the graph side and are never suggested; why: papers you expected, "
            "each slot saying its rank or the stage that dropped it there.",
            citing.CiteRequest,
            citing.CiteResponse,
            lambda request: citing.cite(recommender, request, cite_model),
        ),
        operation_tool(
            "works",
            "A set's prior works (most cited by its neighbourhood) and derivative works (citing most of it).",
            exploring.WorksRequest,
            exploring.WorksResponse,
            lambda request: exploring.works(recommender, request),
        ),
        operation_tool(
            "contextualise_citation",
            "The sentences of the cited paper (title, abstract) that a citing sentence most likely refers to.",
            contextualising.ContextualiseRequest,
            list[contextualising.EvidenceOut],
            lambda request: contextualising.contextualise(store, request, indexes),
        ),
    ]
    return _Server(
        "citegraph",
        version=__version__,
        instructions=(
            "A citation graph with a recommender. Find papers with search_papers, read them with paper and "
            "neighbours, ask recommend for papers to cite (for a paper, a text, or a set of papers), "
            "explain_recommendation for the graph paths behind one, cite for a draft's citation slots."
        ),
        tools=tools,
    )


def operation_tool(
    name: str, description: str, request: type[BaseModel], answer: Any, run: Callable[[Any], Any]
) -> Tool:
    """The tool ``name`` that runs an operation: its input schema is ``request``'s JSON schema, its
    arguments are validated by ``request`` itself (its validators and bounds: the SDK's arguments
    model is ``request`` handed over whole), it answers ``answer`` (its output schema), and a
    :class:`CitegraphError` reaches the agent as a tool error with its message."""

    def call(request):
        try:
            return run(request)
        except CitegraphError as exc:
            raise ToolError(str(exc)) from exc

    call.__annotations__ = {"request": request, "return": answer}
    made = Tool.from_function(call, name=name, description=description)
    arguments = type(f"{request.__name__}Arguments", (request, ArgModelBase), {"model_dump_one_level": _whole})
    return made.model_copy(
        update={
            "parameters": request.model_json_schema(),
            "fn_metadata": made.fn_metadata.model_copy(update={"arg_model": arguments}),
        }
    )


def _whole(arguments: BaseModel) -> dict[str, Any]:
    """The validated arguments as the operation's one parameter (the SDK would spread their fields)."""
    return {"request": arguments}


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
    import io

    import anyio

    protocol = io.TextIOWrapper(protocol_stdout(), encoding="utf-8", newline="\n")
    with Recommender.open(config, retrievers, model) as recommender:
        reranker = CiteModel(cite_model, recommender, config.data_folder("embeddings")) if cite_model else None
        server = create_server(recommender, Path(config.data_dir) / "indexes", reranker)
        anyio.run(_serve_stdio, server, protocol)


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
