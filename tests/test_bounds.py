"""Every door bounds a request's numbers alike (issue 39): the command line (``recommend``,
``watch``, ``cite``), HTTP (``POST /recommend``, ``/works``, ``/cite``, ``GET /neighbours``,
``/search``) and the MCP tools, read from what each door declares (click's types, the OpenAPI
schema, the tools' input schemas); and a number out of bounds is refused at each."""

from __future__ import annotations

import asyncio
import os

import click
import pytest

from citegraph.cli import main
from citegraph.recommend import Recommender
from citegraph.service.http import create_app
from citegraph.service.mcp import create_server

from conftest import citegraph

# the parameters that mean the same on every door that has them: (door, operation, parameter)
SAME = {
    "papers ranked (k)": [
        ("cli", "recommend", "k"),
        ("cli", "watch", "k"),
        ("cli", "cite", "k"),
        ("http", "RecommendRequest", "k"),
        ("http", "WorksRequest", "k"),
        ("http", "CiteRequest", "k"),
        ("mcp", "recommend", "k"),
        ("mcp", "cite", "k"),
    ],
    "a seed's year": [("cli", "recommend", "year"), ("http", "RecommendRequest", "year")],
    "a slot's window": [("cli", "cite", "window"), ("http", "CiteRequest", "window"), ("mcp", "cite", "window")],
    "an ego network's papers": [("http", "/neighbours/{paper_id}", "limit"), ("mcp", "neighbours", "limit")],
    "a search's papers": [("http", "/search", "limit"), ("mcp", "search_papers", "limit")],
}


def _range(schema: dict) -> tuple:
    """(minimum, maximum) of an integer in a JSON schema, a nullable one's included."""
    for option in [schema, *schema.get("anyOf", ())]:
        if option.get("type") == "integer":
            return option.get("minimum"), option.get("maximum")
    raise AssertionError(f"not an integer: {schema}")


def _cli(command: str, name: str) -> tuple:
    [param] = [p for p in main.commands[command].params if p.name == name]
    kind = param.type
    return (kind.min, kind.max) if isinstance(kind, click.IntRange) else (None, None)


@pytest.fixture
def declared(store, tmp_path):
    """Each door's declaration of each operation's parameters (the graph is not queried)."""
    recommender = Recommender(store)
    spec = create_app(recommender).openapi()
    tools = asyncio.run(create_server(recommender, tmp_path / "indexes").list_tools())

    def bounds(door: str, operation: str, name: str) -> tuple:
        if door == "cli":
            return _cli(operation, name)
        if door == "mcp":
            [tool] = [t for t in tools if t.name == operation]
            return _range(tool.input_schema["properties"][name])
        if operation.startswith("/"):
            [param] = [p for p in spec["paths"][operation]["get"]["parameters"] if p["name"] == name]
            return _range(param["schema"])
        return _range(spec["components"]["schemas"][operation]["properties"][name])

    return bounds


@pytest.mark.parametrize("meaning", SAME)
def test_every_door_bounds_a_parameter_alike(declared, meaning):
    found = {where: declared(*where) for where in SAME[meaning]}
    assert len(set(found.values())) == 1, found
    assert None not in next(iter(found.values())), found


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["recommend", "--title", "parsing", "-k", "0"],
            "Invalid value for '-k' / '--k': 0 is not in the range 1<=x<=200",
        ),
        (["recommend", "--title", "parsing", "--year", "99999"], "99999 is not in the range 1000<=x<=3000"),
        (["watch", "--library", "{lib}", "--since", "2013", "-k", "201"], "201 is not in the range 1<=x<=200"),
        (["cite", "--context", "parsing [CIT]", "--window", "21"], "21 is not in the range 0<=x<=20"),
    ],
)
def test_a_number_out_of_bounds_is_refused_on_the_command_line_as_over_http(tmp_path, args, message):
    (tmp_path / "lib.txt").write_text("P12-1066\n")
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
    done = citegraph(*(a.format(lib=tmp_path / "lib.txt") for a in args), env=env)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "data").exists()  # refused before any work
