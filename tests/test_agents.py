"""`citegraph mcp` end to end: the official MCP SDK's own client spawns the server over
stdio on the ACL-200 graph (the ``acl`` fixture: conftest.py), lists the tools, calls each
and compares with the Python API; bad arguments and unknown ids are tool errors, and the
server keeps answering after them."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import pytest

mcp = pytest.importorskip("mcp")

from citegraph.recommend import View  # noqa: E402  (after the importorskip it needs)

TOOLS = {
    "search_papers",
    "paper",
    "neighbours",
    "recommend",
    "explain_recommendation",
    "contextualise_citation",
    "cite",
    "works",
}


def _data(result):
    """A tool result's value: the structured content, else the JSON of its text."""
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def test_an_mcp_client_uses_every_tool(acl, server_env):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "citegraph.cli", "mcp"], env=server_env)
    library = ["10.18653/v1/D15-1039", "P12-1066", "N12-1052"]

    async def session():
        async with Client(params, read_timeout_seconds=300) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            assert "as_of" in tools["recommend"].input_schema["properties"]
            calls = {
                "search": await client.call_tool("search_papers", {"q": "multilingual dependency parsing"}),
                "paper": await client.call_tool("paper", {"id": "P12-1066"}),
                "neighbours": await client.call_tool("neighbours", {"id": "P12-1066", "limit": 5}),
                "recommend": await client.call_tool(
                    "recommend", {"papers": library, "negatives": ["D10-1120"], "as_of": "2012-06-30", "k": 5}
                ),
                "by_paper": await client.call_tool("recommend", {"paper": "P12-1066", "k": 5}),
                "context": await client.call_tool(
                    "contextualise_citation",
                    {"cited": "P12-1066", "citing_text": "selective sharing of parameters across languages"},
                ),
                "bad_k": await client.call_tool("recommend", {"paper": "P12-1066", "k": 0}),
                "bad_date": await client.call_tool("recommend", {"paper": "P12-1066", "as_of": "June"}),
                "bad_day": await client.call_tool("recommend", {"paper": "P12-1066", "as_of": "2013-02-30"}),
                "unknown": await client.call_tool("paper", {"id": "nope"}),
                "both": await client.call_tool("recommend", {"paper": "P12-1066", "papers": ["N12-1052"]}),
                "missing": await client.call_tool("neighbours", {}),
            }
            top = _data(calls["by_paper"])["recommendations"][0]["id"]
            calls["explain"] = await client.call_tool("explain_recommendation", {"paper": "P12-1066", "candidate": top})
            calls["explain_not"] = await client.call_tool(
                "explain_recommendation", {"paper": "P12-1066", "candidate": "P12-1066"}
            )
            calls["after_errors"] = await client.call_tool("paper", {"id": "N12-1052"})
            return calls

    calls = asyncio.run(session())
    for name in (
        "search",
        "paper",
        "neighbours",
        "recommend",
        "by_paper",
        "context",
        "explain",
        "explain_not",
        "after_errors",
    ):
        assert not calls[name].is_error, (name, calls[name].content)
    assert any(hit["id"] == "P12-1066" for hit in _data(calls["search"]))
    assert _data(calls["paper"])["title"] == "Selective Sharing for Multilingual Dependency Parsing"
    hood = _data(calls["neighbours"])
    assert hood["paper"]["id"] == "P12-1066" and {n["kind"] for n in hood["neighbours"]} >= {"cites", "cited_by"}
    got = _data(calls["recommend"])
    expected = acl.for_library(library, k=5, negatives=["D10-1120"], view=View(as_of=2012))
    assert [r["id"] for r in got["recommendations"]] == [r.id for r in expected]
    assert [m["how"] for m in got["matches"]][:2] == ["ACL Anthology DOI", "paper id"]
    assert [r["id"] for r in _data(calls["by_paper"])["recommendations"]] == [
        r.id for r in acl.recommend("P12-1066", k=5)
    ]
    assert _data(calls["context"])[0]["text"] == "Selective Sharing for Multilingual Dependency Parsing"
    explained = _data(calls["explain"])
    assert explained["rank"] == 1 and explained["explanation"] == acl.recommend("P12-1066", k=1)[0].explanation()
    assert _data(calls["explain_not"])["candidate_found"] is False
    assert _data(calls["after_errors"])["id"] == "N12-1052"
    for name, message in (
        ("bad_k", "k"),
        ("bad_date", "as_of"),
        ("bad_day", "February 2013 has no day 30"),
        ("unknown", "no paper with id 'nope'"),
        ("both", "not both"),
        ("missing", "id"),
    ):
        assert calls[name].is_error, name
        assert message in calls[name].content[0].text, (name, calls[name].content[0].text)


BAD_LINES = [  # (line, JSON-RPC error code, id answered, words of the message)
    ("{not json", -32700, None, "Parse error"),
    ("[" * 100_000 + "]" * 100_000, -32700, None, "Parse error"),
    (
        '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"x": %s}}' % ("[" * 500 + "]" * 500),
        -32700,
        None,
        "Parse error",
    ),
    ('[{"jsonrpc": "2.0", "id": 8, "method": "ping"}]', -32600, None, "a batch"),
    ('{"jsonrpc": "1.0", "id": 9, "method": "ping"}', -32600, 9, '"jsonrpc": "2.0"'),
    ('{"jsonrpc": "2.0", "id": 10}', -32600, 10, "no method"),
    ('"ping"', -32600, None, "expected a JSON object"),
    ('{"jsonrpc": "2.0", "id": 11, "method": "no/such/method"}', -32601, 11, ""),
]


def test_every_bad_message_gets_its_json_rpc_error(acl, server_env):
    """Raw lines on the server's stdin, one answer line awaited for each (with a timeout: a
    line left unanswered is the defect); the server still answers a good request after them."""
    import subprocess
    import threading

    server = subprocess.Popen(
        [sys.executable, "-m", "citegraph.cli", "mcp"],
        env=server_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    answers = []
    reader = threading.Thread(target=lambda: answers.extend(server.stdout), daemon=True)
    reader.start()

    def answer(line: str, timeout: float = 120) -> dict:
        count = len(answers)
        server.stdin.write(line + "\n")
        server.stdin.flush()
        deadline = time.monotonic() + timeout
        while len(answers) == count:
            assert server.poll() is None, server.stderr.read()
            assert time.monotonic() < deadline, f"no answer to {line[:80]!r}"
            time.sleep(0.05)
        return json.loads(answers[count])

    try:
        hello = answer(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "0"},
                    },
                }
            )
        )
        assert "result" in hello
        # the server's fd 1 is its stderr (the protocol is on a copy): what a library or a crashing
        # JVM writes to fd 1 never reaches the client
        assert os.readlink(f"/proc/{server.pid}/fd/1") == os.readlink(f"/proc/{server.pid}/fd/2")
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        for line, code, request_id, words in BAD_LINES:
            got = answer(line, timeout=30)
            assert (got["error"]["code"], got["id"]) == (code, request_id), got
            assert words in got["error"]["message"], got
        assert answer(json.dumps({"jsonrpc": "2.0", "id": 12, "method": "ping"})) == {
            "jsonrpc": "2.0",
            "id": 12,
            "result": {},
        }
    finally:
        server.stdin.close()
        server.wait(timeout=60)
