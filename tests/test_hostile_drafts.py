"""Hostile drafts on every door (issue 39). A draft sent to the service (``POST /cite``, the MCP
tool ``cite``) reads no file on the server however it names one, and no answer shows a server
path or tells whether a file exists; YAML aliases and deep nesting are refused on every door,
the command line's included; a named pipe is refused, not waited on; slots, sentences and runs
of LaTeX have stated limits, below which reading takes time linear in the draft; an unexpected
error is a JSON 500 that keeps its connection; an MCP argument error is one line."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi import Request  # at module level: FastAPI resolves the route's annotation here

from citegraph.errors import CitegraphError, InputError
from citegraph.library.draft import (
    MAX_SENT_SLOTS,
    MAX_SENTENCE_CHARS,
    MAX_SLOTS,
    read_draft,
)
from citegraph.recommend.cite import sent_draft

from conftest import citegraph

SECRET = "@misc{secret2024, title = {A secret on the server}}\n"

# A draft naming a file, however spelled: (format, text with {path}); each is what the reader
# of a draft's file follows, so a sent draft must not
NAMES_A_FILE = [
    ("markdown", "---\nbibliography: {path}\n---\nText [@?].\n"),
    ("markdown", '---\n"bibliography": {path}\n---\nText [@?].\n'),
    ("markdown", "---\n'bibliography': {path}\n---\nText [@?].\n"),
    ("markdown", "---\n  bibliography: {path}\n  title: T\n---\nText [@?].\n"),
    ("markdown", "---\n{{bibliography: {path}}}\n---\nText [@?].\n"),
    ("markdown", "---\n? bibliography\n: {path}\n---\nText [@?].\n"),
    ("markdown", "---\nbibliography:\n  - {path}\n---\nText [@?].\n"),
    ("markdown", '---\n"bibli\\x6fgraphy": {path}\n---\nText [@?].\n'),
    ("markdown", "---\n!!str bibliography: {path}\n---\nText [@?].\n"),
    ("markdown", "---\n<<: {{bibliography: {path}}}\n---\nText [@?].\n"),
    ("markdown", "---\r\nbibliography: {path}\r\n---\r\nText [@?].\r\n"),
    ("latex", "\\bibliography{{{path}}}\n\\begin{{document}}\nText \\cite{{}}.\n\\end{{document}}\n"),
    ("latex", "Text \\cite{{}}.\n\\addbibresource{{{path}}}\n"),
    ("latex", "Text \\cite{{}}.\n\\input{{{path}}}\n"),
    ("latex", "Text \\cite{{}}.\n\\include{{{path}}}\n"),
    ("latex", "Text \\cite{{}}.\n\\input {path}\n"),
    ("latex", "Text \\emph{{see \\input{{{path}}} \\cite{{}}}}.\n"),
]


@pytest.fixture
def secret(tmp_path) -> dict[str, Path]:
    """A bibliography on the server, and a path where there is none."""
    (tmp_path / "secret.bib").write_text(SECRET, encoding="utf-8")
    return {"present": tmp_path / "secret.bib", "absent": tmp_path / "absent.bib"}


@pytest.mark.parametrize("fmt, text", NAMES_A_FILE, ids=range(len(NAMES_A_FILE)))
def test_a_sent_draft_naming_a_file_is_refused_however_spelled(secret, fmt, text):
    refusals = []
    for path in secret.values():
        with pytest.raises(CitegraphError) as refused:
            sent_draft(draft=text.format(path=path), format=fmt, bib="@misc{mine, title={Mine}}\n")
        refusals.append(str(refused.value))
    assert "names a file" in refusals[0] and "\n" not in refusals[0], refusals[0]
    assert refusals[0] == refusals[1], "the answer tells whether the file exists"
    assert str(secret["present"].parent) not in refusals[0] and "secret" not in refusals[0]


@pytest.mark.parametrize("key", ['"bibliography"', "{bibliography"])
def test_a_draft_s_file_follows_the_same_spellings(tmp_path, key):
    """What the sent door refuses is what the file door reads: the keys spelled otherwise too."""
    (tmp_path / "refs.bib").write_text(SECRET, encoding="utf-8")
    value = "refs.bib}" if key.startswith("{") else "refs.bib"
    (tmp_path / "d.md").write_text(f"---\n{key}: {value}\n---\nText [@?] and [@secret2024].\n", encoding="utf-8")
    draft = read_draft(tmp_path / "d.md")
    assert draft.bibliographies == (tmp_path / "refs.bib",) and list(draft.references) == ["secret2024"]


@pytest.mark.parametrize(
    "value, kind", [("5", "a number"), ("{a: b}", "a mapping"), ("[refs.bib, 7]", "a list"), ("true", "a boolean")]
)
def test_a_bibliography_of_another_type_is_one_located_error_on_both_doors(tmp_path, value, kind):
    text = f"---\ntitle: T\nbibliography: {value}\n---\nText [@?].\n"
    (tmp_path / "d.md").write_text(text, encoding="utf-8")
    expected = f":3: field 'bibliography' a file name or a list of file names, not {kind}"
    with pytest.raises(InputError, match=f"^{tmp_path / 'd.md'}{expected}$"):
        read_draft(tmp_path / "d.md")
    with pytest.raises(InputError, match=f"^draft.md{expected}$"):
        sent_draft(draft=text, format="markdown")


def alias_bomb(levels: int = 7) -> str:
    """~300 bytes of YAML whose aliases of aliases stand for 10**levels strings."""
    names = [chr(ord("a") + i) for i in range(levels)]
    lines = [f'{names[0]}: &{names[0]} ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"{n}: &{n} [{','.join(['*' + p] * 10)}]" for p, n in zip(names, names[1:])]
    return "---\n" + "\n".join(lines) + f"\ntitle: *{names[-1]}\n---\nText [@?].\n"


DEEP_YAML = "---\nt: " + "[" * 3000 + "]" * 3000 + "\n---\nText [@?].\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (alias_bomb(), "draft.md:3: field 'front matter' an alias (*a): YAML aliases are not read"),
        (DEEP_YAML, "draft.md:2: field 'front matter' nested more than 20 levels deep"),
    ],
    ids=["alias-bomb", "deep"],
)
def test_yaml_aliases_and_deep_nesting_are_refused_at_once_on_every_door(tmp_path, text, message):
    assert len(alias_bomb()) < 400
    (tmp_path / "draft.md").write_text(text, encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(InputError) as sent:
        sent_draft(draft=text, format="markdown")
    with pytest.raises(InputError) as read:
        read_draft(tmp_path / "draft.md")
    assert time.perf_counter() - started < 2
    assert str(sent.value) == message and str(read.value) == f"{tmp_path}/{message}"
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
    done = citegraph("cite", "--draft", str(tmp_path / "draft.md"), env=env, timeout=120)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [f"Error: {tmp_path}/{message}"], done.stderr


def test_a_named_pipe_as_a_draft_is_refused_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "draft.tex")
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
    done = citegraph("cite", "--draft", str(tmp_path / "draft.tex"), env=env, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"Error: {tmp_path}/draft.tex: not a regular file (a pipe, a device or a socket)"
    ]


def _slots(n: int) -> str:
    return "".join(f"Sentence {i} names a method [CIT]. " for i in range(n))


def test_each_door_has_its_limit_of_slots(tmp_path):
    (tmp_path / "at.txt").write_text(_slots(MAX_SLOTS), encoding="utf-8")
    (tmp_path / "over.txt").write_text(_slots(MAX_SLOTS + 1), encoding="utf-8")
    assert len(read_draft(tmp_path / "at.txt").slots) == MAX_SLOTS
    with pytest.raises(CitegraphError, match=f"^{tmp_path}/over.txt: more than 1,000 citation slots, the limit of"):
        read_draft(tmp_path / "over.txt")
    assert len(sent_draft(draft=_slots(MAX_SENT_SLOTS), format="text").slots) == MAX_SENT_SLOTS
    sent_over = f"more than {MAX_SENT_SLOTS} citation slots, the limit of a draft sent to the service"
    with pytest.raises(CitegraphError, match=f"^draft.txt: {sent_over}"):
        sent_draft(draft=_slots(MAX_SENT_SLOTS + 1), format="text")
    with pytest.raises(CitegraphError, match=f"^context: {sent_over}"):
        sent_draft(context="[CIT] " * (MAX_SENT_SLOTS + 1))


def test_a_sentence_over_the_limit_is_refused_naming_the_slot():
    long = "word " * (MAX_SENTENCE_CHARS // 5 + 1)
    with pytest.raises(CitegraphError, match="^draft.txt:1:7: the slot's sentence is 5,0"):
        sent_draft(draft=f"Start [CIT] {long}.", format="text")
    with pytest.raises(CitegraphError, match="^draft.txt:1:18: a sentence beside the slot is 5,0"):
        sent_draft(draft=f"A short sentence [CIT]. And {long}.", format="text")
    assert len(sent_draft(draft=f"A short sentence [CIT]. And {long}.", format="text", window=0).slots) == 1


def test_a_long_run_of_latex_without_markup_is_refused_at_once():
    """pylatexenc reads such a run in time growing with its square: 800,000 characters took 36 s."""
    with pytest.raises(CitegraphError, match=r"^draft.tex:1: 60,003 characters of text without a LaTeX command"):
        sent_draft(draft="Intro \\cite{}.\n" + "x" * 60_001, format="latex")
    started = time.perf_counter()
    with pytest.raises(CitegraphError, match=r"^draft.tex:1: 800,000 characters of text without a LaTeX command"):
        sent_draft(draft="word " * 160_000 + "\\cite{}.", format="latex")
    assert time.perf_counter() - started < 1


def _seconds(read: Callable[[], object]) -> float:
    """The best of three: the time to read or to refuse."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        try:
            read()
        except CitegraphError:
            pass
        best = min(best, time.perf_counter() - started)
    return best


# Shapes whose reading took time growing with the square of their size, and LaTeX below its
# limit of a run: (format, size n, text of size n); 4n characters must take less than 8 times as
# long as n
SHAPES = {
    "initials-joined-into-one-sentence": ("text", 150_000, lambda n: "J. R. R. T. " * (n // 12) + "Then [CIT] here."),
    "unclosed-bracket-before-keys": ("markdown", 10_000, lambda n: "[" + "@a " * (n // 3) + "[@?]"),
    "citations-on-one-markdown-line": ("markdown", 8_000, lambda n: "Text " + "[@?] " * (n // 5)),
    "slots-in-one-sentence": ("text", 8_000, lambda n: "Words " + "and [CIT] " * (n // 10) + "end."),
    "latex-runs-under-the-limit": ("latex", 100_000, lambda n: ("word " * 9_000 + "~") * (n // 45_001) + "\\cite{}."),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_reading_time_grows_linearly_with_the_draft(shape):
    fmt, n, text = SHAPES[shape]
    small, large = (_seconds(lambda size=size: sent_draft(draft=text(size), format=fmt)) for size in (n, 4 * n))
    assert large < 8 * max(small, 0.02), f"4x the text took {large / small:.1f}x the time ({small:.3f} → {large:.3f} s)"


# -- over HTTP (a real uvicorn on a kept-alive connection) and MCP -------------------------------
@pytest.fixture
def served(store):
    """``create_app`` on a recommender over an empty graph (drafts are refused before it is
    asked), with one more route that fails as a bug would, served by uvicorn in a thread."""
    import uvicorn

    from citegraph.recommend import Recommender
    from citegraph.service.http import create_app

    app = create_app(Recommender(store))

    @app.get("/port")
    def port(request: Request) -> int:  # the client's port: which connection a request came on
        assert request.client is not None
        return request.client.port

    @app.get("/bug")
    def bug() -> None:
        raise TypeError("a bug the service did not foresee")

    listening = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=30)


def test_an_unexpected_error_is_a_json_500_that_keeps_its_connection(served, caplog):
    with httpx.Client(base_url=served, timeout=30) as client:
        first = client.get("/port").json()
        assert isinstance(first, int), first
        failed = client.get("/bug")
        time.sleep(0.2)  # a connection the server closes after its 500 is closed by now
        assert client.get("/port").json() == first, "the 500 closed the connection"
    assert failed.status_code == 500 and failed.json() == {
        "detail": "an unexpected error: the service's log has its cause"
    }
    assert "TypeError: a bug the service did not foresee" in caplog.text  # the operator sees the cause

    errors = []

    def burst() -> None:  # bugs and good requests interleaved on each of 8 kept-alive connections
        with httpx.Client(base_url=served, timeout=30) as client:
            for i in range(40):
                try:
                    answer = client.get("/bug" if i % 3 == 0 else "/health")
                    if answer.status_code not in (200, 500):
                        errors.append(answer.status_code)
                except httpx.TransportError as exc:
                    errors.append(repr(exc))

    threads = [threading.Thread(target=burst) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def hostile_bodies(secret: dict[str, Path]) -> list[tuple[dict, bool]]:
    """POST /cite bodies (files named every way, wrong types, bombs, depth, limits), each with
    whether it is still a draft to answer (else it is refused)."""
    refused = [
        {"draft": text.format(path=path), "format": fmt, "bib": "@misc{mine, title={Mine}}\n"}
        for fmt, text in NAMES_A_FILE
        for path in secret.values()
    ]
    refused += [
        {"draft": f"---\nbibliography: {value}\n---\nText [@?].\n", "format": "markdown"}
        for value in ("5", "[1, 2]", "{a: b}", "!!binary aGVsbG8=", "2024-01-01")
    ]
    refused += [
        {"draft": alias_bomb(8), "format": "markdown"},
        {"draft": DEEP_YAML, "format": "markdown"},
        {"draft": "---\n" + "".join(" " * i + "k:\n" for i in range(60)) + "---\nText [@?].\n", "format": "markdown"},
        {"draft": "{" * 5000 + "\\cite{}" + "}" * 5000},
        {"draft": "\\begin{itemize}" * 3000 + "\\cite{}" + "\\end{itemize}" * 3000},
        {"draft": ">" * 100_000 + " [@?]", "format": "markdown"},
        {"draft": "[" + "@a " * 100_000 + "[@?]", "format": "markdown"},
        {"draft": _slots(MAX_SENT_SLOTS + 1), "format": "text"},
        {"draft": "x" * 60_001 + " \\cite{}"},
        {"draft": "Start [CIT] " + "word " * 2000 + ".", "format": "text"},
        {"context": "[CIT] " * 833},
        {"draft": "Text \\cite{}.", "bib": "@misc{a, title = {" + "{" * 3000 + "}"},
        {"draft": "Text \\cite{}.", "format": "docx"},
        {"draft": "Text \\cite{}.", "window": 21},
    ]
    answered = [{"draft": "Text \x00 \\cite{}."}, {"draft": "Text \\cite{}.", "bib": "{" * 5000}]
    return [(body, False) for body in refused] + [(body, True) for body in answered]


def _without_server_paths(text: object, secret: dict[str, Path]) -> None:
    assert isinstance(text, str), text
    for server_path in (str(secret["present"].parent), "/tmp/", str(Path.cwd())):
        assert server_path not in text, text[:500]


def test_no_hostile_draft_gets_a_500_a_server_path_or_a_stall_over_http(served, secret):
    with httpx.Client(base_url=served, timeout=60) as client:
        port = client.get("/port").json()
        for body, answered in hostile_bodies(secret):
            started = time.perf_counter()
            answer = client.post("/cite", json=body)
            took = time.perf_counter() - started
            assert answer.status_code == (200 if answered else 422), (str(body)[:200], answer.text[:300])
            _without_server_paths(answer.text, secret)
            detail = answer.json().get("detail", "")
            assert "\n" not in detail and len(detail) < 300, detail
            assert took < 20, (took, str(body)[:100])
        assert client.get("/port").json() == port  # one connection throughout


def test_the_mcp_cite_tool_refuses_the_same_in_one_line(store, secret, tmp_path):
    from mcp import Client

    from citegraph.recommend import Recommender
    from citegraph.service.mcp import create_server

    async def session():
        async with Client(create_server(Recommender(store), tmp_path / "indexes")) as client:
            return [await client.call_tool("cite", body) for body, _ in hostile_bodies(secret)]

    for (body, answered), result in zip(hostile_bodies(secret), asyncio.run(session())):
        assert result.is_error is not answered, (str(body)[:200], result.content[0].text[:300])
        _without_server_paths(result.content[0].text, secret)
        assert answered or "\n" not in result.content[0].text, result.content[0].text


@pytest.mark.parametrize(
    "tool, arguments, message",
    [
        ("recommend", {"title": "parsing", "k": 0}, "k: Input should be greater than or equal to 1"),
        ("recommend", {"title": "parsing", "k": "ten"}, "k: Input should be a valid integer"),
        ("cite", {"context": "parsing [CIT]", "format": "docx"}, "format: Input should be 'latex', 'markdown'"),
        ("neighbours", {}, "id: Field required"),
        ("search_papers", {"q": "x", "limit": 101}, "limit: Input should be less than or equal to 100"),
    ],
)
def test_an_mcp_argument_error_is_one_line_naming_the_field(store, tmp_path, tool, arguments, message):
    from mcp import Client

    from citegraph.recommend import Recommender
    from citegraph.service.mcp import create_server

    async def call():
        async with Client(create_server(Recommender(store), tmp_path / "indexes")) as client:
            return await client.call_tool(tool, arguments)

    result = asyncio.run(call())
    text = result.content[0].text
    assert result.is_error and text.startswith(f"Error executing tool {tool}: {message}"), text
    assert "\n" not in text and "pydantic" not in text and "http" not in text and "input_value" not in text, text
