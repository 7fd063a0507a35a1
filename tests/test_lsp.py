"""``citegraph lsp`` driven by a real LSP client over stdio (pytest-lsp) on the ACL-200 ∪
ScisummNet graph with a BM25 index: completion of a slot being typed (LaTeX and Markdown),
the bibliography's own keys and new entries appended to the .bib, hover on a cited key,
diagnostics on unsaved text, cancellation, a malformed request; and Neovim's own LSP client
completing ``\\cite{`` in a headless editor."""

from __future__ import annotations

import asyncio
import json
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="needs the [lsp] extra (pygls)")
pytest_asyncio = pytest.importorskip("pytest_asyncio", reason="needs pytest-lsp (the dev extra)")

from lsprotocol import types  # noqa: E402
from pygls.exceptions import JsonRpcRequestCancelled  # noqa: E402
from pytest_lsp import ClientServerConfig  # noqa: E402

from citegraph.library.draft import read_draft  # noqa: E402

from conftest import ACL200, ACL_INGESTED  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "scisummnet"
MERT = "P03-1021"  # Och 2003, Minimum Error Rate Training in Statistical Machine Translation
TYPED = r"Phrase-based statistical machine translation \cite{koehn03} is tuned with minimum error rate training \cite{"
LATEX = rf"""\documentclass{{article}}
\title{{Dependency syntax for statistical machine translation}}
\begin{{document}}
\begin{{abstract}}
We add dependency parsing to phrase-based statistical machine translation.
\end{{abstract}}
{TYPED}

Dependency parsers are trained with online large-margin learning \citep{{mcdonald05}}.
\bibliography{{refs}}
\end{{document}}
"""
BIB = """@inproceedings{koehn03, title = {Statistical Phrase-Based Translation},
  author = {Koehn, Philipp and Och, Franz Josef and Marcu, Daniel}, year = {2003}}
@inproceedings{mcdonald05, title = {Online Large-Margin Training of Dependency Parsers},
  author = {McDonald, Ryan and Crammer, Koby and Pereira, Fernando}, year = {2005}}
"""
MARKDOWN = """---
title: Dependency syntax for statistical machine translation
bibliography: refs.bib
---

Phrase-based translation [@koehn03] is tuned with minimum error rate training [@
"""


@pytest.fixture(scope="module")
def graph(arcade_server, server_config, tmp_path_factory):
    """ACL-200 ∪ the ScisummNet fixtures, with a BM25 index in the session data dir."""
    from citegraph.graph import open_store
    from citegraph.ingest import IngestOptions, formats, ingest
    from citegraph.retrieval.bm25 import build_bm25
    from citegraph.retrieval.corpus import documents
    from citegraph.retrieval.spec import BM25

    folders = tmp_path_factory.mktemp("scisummnet")
    for folder in FIXTURES.iterdir():
        shutil.copytree(folder, folders / folder.name)
    arcade_server.recreate_database()
    with open_store(server_config) as store:
        ingest(store, formats.get("acl200"), [ACL200], IngestOptions(clock=lambda: ACL_INGESTED, batch_size=5000))
        ingest(store, formats.get("scisummnet"), [folders])
        build_bm25(list(documents(store)), Path(server_config.data_dir) / "indexes" / BM25().folder, backend="bm25s")
    return server_config


def _env(config) -> dict[str, str]:
    import os

    return {
        **os.environ,
        "CITEGRAPH_URI": config.uri,
        "CITEGRAPH_USER": config.user,
        "CITEGRAPH_PASSWORD": config.password,
        "CITEGRAPH_DATABASE": config.database,
        "CITEGRAPH_DATA_DIR": str(config.data_dir),
    }


LSP = [sys.executable, "-m", "citegraph.cli", "lsp"]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def client(graph, tmp_path_factory):
    """One ``citegraph lsp`` for the module's tests, with pytest-lsp's client (which checks
    every answer against the capabilities the client declared)."""
    lsp = await ClientServerConfig(server_command=LSP, server_env=_env(graph)).start()
    edits: list[types.ApplyWorkspaceEditParams] = []

    @lsp.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams):
        edits.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    lsp.edits = edits
    folder = tmp_path_factory.mktemp("editor")
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    completion=types.CompletionClientCapabilities(
                        completion_item=types.ClientCompletionItemOptions(
                            documentation_format=[types.MarkupKind.Markdown]
                        )
                    ),
                    hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
                ),
                workspace=types.WorkspaceClientCapabilities(apply_edit=True),
            ),
            root_uri=folder.as_uri(),
        )
    )
    yield lsp, folder
    await lsp.shutdown_session()
    await lsp.stop()


def _open(lsp, path: Path, text: str, language: str) -> str:
    uri = path.as_uri()
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text)))
    return uri


def _end_of(text: str, line_text: str) -> types.Position:
    """The position at the end of the line holding ``line_text``."""
    lines = text.split("\n")
    line = next(n for n, line in enumerate(lines) if line_text in line)
    return types.Position(line=line, character=len(lines[line]))


def _completion(uri: str, at: types.Position) -> types.CompletionParams:
    return types.CompletionParams(types.TextDocumentIdentifier(uri), at)


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_inside_a_cite_being_typed_ranks_papers_with_reasons(client):
    """``\\cite{`` typed, unclosed, after "minimum error rate training": the ranked papers of
    ``citegraph cite`` for that slot, MERT among them; each labelled by the key it inserts,
    detailed by authors, year and title, documented by its reasons; a paper the .bib lacks
    brings the command that appends its entry there, and the entry appended makes its key resolve."""
    lsp, folder = client
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    tex = folder / "paper.tex"
    tex.write_text(LATEX.replace(TYPED, TYPED + "}"), encoding="utf-8")  # the saved file: older than the buffer
    uri = _open(lsp, tex, LATEX, "latex")
    found = await lsp.text_document_completion_async(_completion(uri, _end_of(LATEX, "error rate training")))
    items = found.items if isinstance(found, types.CompletionList) else found
    assert len(items) >= 5
    by_key = {item.label: item for item in items}
    assert MERT in by_key, list(by_key)
    for item in items:
        assert item.detail and item.documentation and item.text_edit
        assert "first stage rank" in item.documentation.value  # the reasons
    mert = by_key[MERT]
    # authors – year – title; ACL-200's records name no authors
    assert mert.detail == "2003 – Minimum Error Rate Training in Statistical Machine Translation"
    assert "koehn03" not in by_key  # cited in the same sentence: never suggested there

    assert mert.command is not None and mert.command.arguments[0] == str(folder / "refs.bib")
    await lsp.workspace_execute_command_async(types.ExecuteCommandParams(mert.command.command, mert.command.arguments))
    [edit] = lsp.edits
    [(bib_uri, [change])] = edit.edit.changes.items()
    assert bib_uri == (folder / "refs.bib").as_uri()
    assert (change.range.start.line, change.range.start.character) == (4, 0)  # the end of the .bib
    (folder / "refs.bib").write_text(BIB + change.new_text, encoding="utf-8")
    typed = LATEX.replace(TYPED, TYPED + MERT + "}")
    read = read_draft(tex, text=typed.replace("\\cite{koehn03}", "\\cite{}"))
    assert MERT in read.references and read.references[MERT].title.startswith("Minimum Error Rate Training")
    [slot] = read.slots  # the empty one: the key chosen resolves now
    assert slot.unresolved == ()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_paper_the_bib_holds_inserts_its_own_key(client):
    """MERT is in the .bib as och03, cited in another paragraph: it is suggested by that key,
    with no entry to add."""
    lsp, folder = client
    (folder / "own.bib").write_text(
        BIB + "@inproceedings{och03, title = {Minimum Error Rate Training in Statistical Machine Translation},"
        " author = {Och, Franz Josef}, year = {2003}}\n",
        encoding="utf-8",
    )
    text = LATEX.replace(r"\bibliography{refs}", r"\bibliography{own}").replace(
        "\\citep{mcdonald05}", "\\citep{mcdonald05} as \\cite{och03} did"
    )
    uri = _open(lsp, folder / "own.tex", text, "latex")
    found = await lsp.text_document_completion_async(_completion(uri, _end_of(text, "error rate training")))
    by_key = {item.label: item for item in found.items}
    assert "och03" in by_key and MERT not in by_key
    assert by_key["och03"].command is None and "appends" not in by_key["och03"].documentation.value


@pytest.mark.asyncio(loop_scope="module")
async def test_markdown_completion_after_an_open_bracket(client):
    lsp, folder = client
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    uri = _open(lsp, folder / "notes.md", MARKDOWN, "markdown")
    found = await lsp.text_document_completion_async(_completion(uri, _end_of(MARKDOWN, "[@")))
    keys = [item.label for item in found.items]
    assert len(keys) >= 5 and MERT in keys and "koehn03" not in keys


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_a_cited_key_says_the_paper_and_how_it_fits(client):
    lsp, folder = client
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    text = LATEX.replace(TYPED, TYPED + "}")
    uri = _open(lsp, folder / "hover.tex", text, "latex")
    line = _end_of(text, "koehn03").line
    at = types.Position(line=line, character=text.split("\n")[line].index("koehn03") + 3)
    hover = await lsp.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), at))
    value = hover.contents.value
    assert value.startswith("**Statistical Phrase-Based Translation** – 2003 – N03-1017\n\n")
    assert "Fits this sentence: rank" in value or "Does not fit" in value
    assert hover.range.start.character == at.character - 3 and hover.range.end.character == at.character + 4
    nothing = await lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line=line, character=2))
    )
    assert nothing is None  # not in a citation


@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_follow_the_unsaved_text(client):
    """Asked for in the settings: a key the .bib lacks and an empty \\cite{}, on the text as typed."""
    lsp, folder = client
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    lsp.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"citegraph": {"diagnostics": True}})
    )
    text = LATEX.replace(TYPED, TYPED + "} and \\cite{nosuch}")
    path = folder / "diagnosed.tex"
    uri = _open(lsp, path, text, "latex")
    await lsp.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    found = sorted((d.range.start.character, d.message) for d in lsp.diagnostics[uri])
    line = text.split("\n")[_end_of(text, "nosuch").line]
    assert found == [
        (line.index("\\cite{}"), "empty \\cite{}: no key"),
        (line.index("nosuch"), "key 'nosuch' is not in the bibliography (refs.bib)"),
    ]
    fixed = text.replace("\\cite{nosuch}", "\\cite{mcdonald05}").replace("\\cite{}", "\\cite{koehn03}")
    lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await lsp.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(lsp.diagnostics[uri]) == []
    lsp.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"citegraph": {"diagnostics": False}})
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_k_has_cites_bounds_and_a_bad_setting_is_one_warning(client):
    """``k`` in the settings is how many items a completion gives, within ``cite -k``'s bounds;
    a value out of them is one warning in the client's log and changes nothing."""
    lsp, folder = client
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    uri = _open(lsp, folder / "k.tex", LATEX, "latex")
    at = _completion(uri, _end_of(LATEX, "error rate training"))

    async def items() -> int:
        found = await lsp.text_document_completion_async(at)
        return len(found.items if isinstance(found, types.CompletionList) else found)

    lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"citegraph": {"k": 3}}))
    assert await items() == 3
    lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"citegraph": {"k": 500}}))
    message = await lsp.wait_for_notification(types.WINDOW_LOG_MESSAGE)
    assert message.type == types.MessageType.Warning and message.message.startswith("citegraph settings: k: ")
    assert await items() == 3  # unchanged
    lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"citegraph": {"k": 10}}))
    assert await items() == 10


@pytest.mark.asyncio(loop_scope="module")
async def test_a_cancelled_completion_is_answered_cancelled_and_the_next_one_served(client):
    lsp, folder = client
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    uri = _open(lsp, folder / "cancel.tex", LATEX, "latex")
    params = _completion(uri, _end_of(LATEX, "error rate training"))
    first = asyncio.ensure_future(lsp.protocol.send_request_async(types.TEXT_DOCUMENT_COMPLETION, params))
    second = asyncio.ensure_future(
        lsp.protocol.send_request_async(types.TEXT_DOCUMENT_COMPLETION, params, msg_id="to-cancel")
    )
    await asyncio.sleep(0)  # both sent (each task's first step), the second queued behind the first
    lsp.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="to-cancel"))
    with pytest.raises(JsonRpcRequestCancelled):
        await second
    assert len((await first).items) >= 5
    again = await lsp.text_document_completion_async(params)
    assert len(again.items) >= 5


def _frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream) -> dict:
    """One message; an answer that does not come within a minute fails the test, not hangs it."""
    length = None
    while select.select([stream], [], [], 60)[0] and (line := stream.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    assert length is not None, "the server closed its output"
    return json.loads(stream.read(length))


def _answer(stream, request_id) -> dict:
    """The response to ``request_id`` (None: an error without id), notifications skipped."""
    while (message := _read_message(stream)).get("id") != request_id or "method" in message:
        pass
    return message


def test_malformed_requests_get_errors_and_the_server_goes_on(graph, tmp_path):
    """Raw bytes on stdio: a body that is not JSON, a completion without its position, an unknown
    method — each answered by an error (or dropped, for the unreadable body) — and the server
    still answers the next request and shuts down cleanly."""
    tex = tmp_path / "paper.tex"
    tex.write_text(LATEX, encoding="utf-8")
    uri = tex.as_uri()
    server = subprocess.Popen(LSP, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env(graph), bufsize=0)
    assert server.stdin is not None and server.stdout is not None
    try:

        def send(message: dict | bytes) -> None:
            server.stdin.write(_frame(message))
            server.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        assert "capabilities" in _answer(server.stdout, 1)["result"]
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        item = {"uri": uri, "languageId": "latex", "version": 1, "text": LATEX}
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}})
        send(b"{not json")
        assert _answer(server.stdout, None)["error"]["code"] == -32700  # parse error
        send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/completion", "params": {"textDocument": {"uri": uri}}})
        assert _answer(server.stdout, 2)["error"]["code"] == -32602  # invalid params
        send({"jsonrpc": "2.0", "id": 3, "method": "citegraph/nothing", "params": {}})
        assert _answer(server.stdout, 3)["error"]["code"] == -32601  # method not found
        at = {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}
        send({"jsonrpc": "2.0", "id": 4, "method": "textDocument/completion", "params": at})
        assert _answer(server.stdout, 4) == {"jsonrpc": "2.0", "id": 4, "result": None}  # not in a citation
        send({"jsonrpc": "2.0", "id": 5, "method": "shutdown"})
        assert _answer(server.stdout, 5)["result"] is None
        send({"jsonrpc": "2.0", "method": "exit"})
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()


def test_the_command_names_its_extra_when_pygls_is_missing(tmp_path):
    """Without pygls, one line naming the [lsp] extra and exit 1."""
    blocker = tmp_path / "pygls.py"
    blocker.write_text("raise ImportError('no pygls here', name='pygls')\n")
    run = "import sys; sys.path.insert(0, sys.argv[1]); from citegraph.cli import main; main(args=['lsp'])"
    done = subprocess.run([sys.executable, "-c", run, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "Error: citegraph lsp needs the [lsp] extra (pygls is not installed): pip install 'citegraph[lsp]'"
    )


NVIM_CONFIG = """
local done = false
vim.lsp.start_client({{
  name = "citegraph",
  cmd = {cmd},
  cmd_env = {env},
  on_init = function(client)
    local buf = vim.api.nvim_get_current_buf()
    vim.lsp.buf_attach_client(buf, client.id)
    local params = {{
      textDocument = {{ uri = vim.uri_from_bufnr(buf) }},
      position = {{ line = {line}, character = {character} }},
    }}
    vim.defer_fn(function()
      client.request("textDocument/completion", params, function(err, result)
        local out = io.open({out}, "w")
        out:write(vim.fn.json_encode({{ err = err or vim.NIL, result = result or vim.NIL }}))
        out:close()
        done = true
      end, buf)
    end, 200)
  end,
}})
vim.wait(120000, function() return done end, 100)
vim.cmd("qa!")
"""


@pytest.mark.slow
def test_neovim_completes_a_cite_being_typed(graph, tmp_path):
    """Neovim's built-in LSP client (headless): a .tex opened, ``\\cite{`` typed at the end of a
    sentence (insert mode, unsaved), the completion items read back."""
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("needs Neovim (apt-get install neovim): its built-in LSP client drives the server")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    tex = tmp_path / "paper.tex"
    saved = LATEX.replace(TYPED, TYPED[: -len(" \\cite{")])
    tex.write_text(saved, encoding="utf-8")
    position = _end_of(LATEX, "error rate training")
    out = tmp_path / "completion.json"
    env = {k: v for k, v in _env(graph).items() if k.startswith("CITEGRAPH_") or k in ("PATH", "HOME")}
    lua = NVIM_CONFIG.format(
        cmd="{" + ", ".join(json.dumps(part) for part in LSP) + "}",
        env="{" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + "}",
        line=position.line,
        character=position.character,
        out=json.dumps(str(out)),
    )
    (tmp_path / "init.lua").write_text(lua, encoding="utf-8")
    typing = f"{position.line + 1}GA \\cite{{"  # go to the line, append ' \cite{' (insert mode: unsaved)
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"normal! {typing}", "-c", f"luafile {tmp_path / 'init.lua'}", str(tex)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.is_file(), done.stderr
    answer = json.loads(out.read_text())
    assert answer["err"] is None, answer
    result = answer["result"]
    items = result["items"] if isinstance(result, dict) else result
    labels = [item["label"] for item in items]
    assert len(labels) >= 5 and MERT in labels
    assert tex.read_text(encoding="utf-8") == saved  # the buffer's text was asked about, not the file's


def test_the_cursor_finds_the_citation_it_is_in():
    """The key being typed becomes a '?' slot, the citation closed when it is not."""
    from citegraph.service.language_server import citation_at

    def slot(text: str, kind: str, at: str) -> str | None:
        found = citation_at(text, text.index(at) + len(at), kind)
        return None if found is None else found.as_slot

    assert slot("MERT \\citep[see][p.~3]{koehn03, oc", "latex", "oc") == "MERT \\citep[see][p.~3]{koehn03, ?}"
    assert slot("MERT \\cite{} is", "latex", "{") == "MERT \\cite{?} is"
    assert slot("MERT \\autocite{ and more", "latex", "{") == "MERT \\autocite{?} and more"
    assert slot("MERT \\emph{", "latex", "{") is None
    assert slot("MERT [@ more", "markdown", "[@") == "MERT [@?] more"
    assert slot("MERT [see @ab; @cd] more", "markdown", "@a") == "MERT [see @?; @cd] more"
    assert slot("As @smith. said", "markdown", "@smi") == "As @?. said"
    assert slot("mail me@x.org", "markdown", "me@x") is None


def test_unsaved_text_over_a_drafts_limit_is_refused_in_one_line(tmp_path):
    """The editor's text is held to the limit of a draft's file, as the file itself would be."""
    from citegraph.errors import CitegraphError
    from citegraph.library.draft import MAX_DRAFT_BYTES

    tex = tmp_path / "huge.tex"
    with pytest.raises(
        CitegraphError, match=r"^.*huge\.tex: 5,000,001 characters, over the 5 MB limit of a draft's file$"
    ):
        read_draft(tex, text="x" * (MAX_DRAFT_BYTES + 1))
