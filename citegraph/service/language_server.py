"""``citegraph lsp``: the recommender in the editor, as a Language Server on stdio (pygls; the
``[lsp]`` extra), for LaTeX and Markdown (Pandoc/Quarto) drafts.

- **Completion** inside ``\\cite{``, ``\\citep{``, ``\\citet{``, ``\\autocite[..]{`` (any cite
  command of :data:`~citegraph.library.draft.CITE_COMMANDS`) and after ``[@`` or ``@``: the
  ranked papers of ``citegraph cite`` for *this* slot — the citation at the cursor, the key
  being typed made a ``?`` slot — with the sentence being typed, the draft's title and abstract
  and its bibliography (``\\bibliography{}``/``\\addbibresource{}``, the front matter's
  ``bibliography:``, beside the draft). Each item's label is the key it inserts, its detail the
  authors, year and title, its documentation the reasons. A paper the bibliography holds inserts
  its own key; another inserts the key of its BibTeX entry (``--format bibtex``'s exporter) and
  carries the command :data:`ADD_ENTRY`, which appends that entry to the bibliography through
  ``workspace/applyEdit``: a completion's ``additionalTextEdits`` may only edit the document
  being completed, never the ``.bib``.
- **Hover** on a cited key: the key's paper, and its rank and reasons at that citation asked
  as a slot — or the stage that would drop it there.
- **Diagnostics**, when asked for (``initializationOptions`` or the ``citegraph`` settings:
  ``{"diagnostics": true}``): a key the bibliography lacks, an empty ``\\cite{}``.

The draft is the editor's text, unsaved edits included (``didChange``), read by the draft
readers of ``citegraph cite`` (:func:`~citegraph.library.draft.read_draft`); every answer comes
from :mod:`citegraph.operations.editing`, over :func:`citegraph.operations.citing.cite`. The
recommender (graph, indexes, model) is opened once per server, on a thread, as soon as it
starts — on a resident graph (``citegraph graph start``) when one runs, as every command
attaches. The ranking runs on one worker thread: a request cancelled (``$/cancelRequest``)
before it starts never runs, and is answered with the cancellation error; one cancelled while
it runs is answered so at once and its result dropped.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cattrs import ClassValidationError, transform_error
from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcParseError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from .. import __version__
from ..errors import CitegraphError
from ..library.draft import CITE_COMMANDS, FORMATS, read_draft
from ..operations.editing import EditorSettings, KeyFit, SlotAnswer, fit_of, slot_at, suggest_at
from .stdio import protocol_stdout

if TYPE_CHECKING:
    from ..config import Config
    from ..library.draft import Draft
    from ..recommend import Recommender
    from ..recommend.cite import CiteModel

ADD_ENTRY = "citegraph.addToBibliography"  # arguments: the bibliography's path, the BibTeX entry
# the citation the cursor is in, read on its line up to the cursor: a cite command's open key
# list (its [..] options before it), or a Pandoc '@' (in brackets or in the text)
_LATEX_OPEN = re.compile(r"\\(?P<command>[A-Za-z]+\*?)\s*(?:\[[^\]\n]*\]\s*){0,2}\{(?P<keys>[^{}\n]*)$")
_PANDOC_OPEN = re.compile(r"(?<![\w@.:/\]\\])-?@(?P<key>[\w:.#$%&+?<>~/-]*)$")
_LATEX_KEY_REST = re.compile(r"[^,{}\s]*")
_PANDOC_KEY_REST = re.compile(r"(?:[\w:.#$%&+?<>~/-]*\w)?")
# a LaTeX citation at its slot's place: the command, its options and its key list
_LATEX_CITATION = re.compile(r"\\[A-Za-z]+\*?\s*(?:\[[^\]]*\]\s*){0,2}\{(?P<keys>[^{}]*)\}")


@dataclass(frozen=True)
class CitationAt:
    """The citation at the cursor: the key under the cursor (its span: the key being typed,
    possibly empty) and the document's text with that key a ``?`` slot, the citation closed if
    it was not."""

    key_start: int
    key_end: int
    as_slot: str


def citation_at(text: str, offset: int, kind: str) -> CitationAt | None:
    """The citation around ``offset`` in a ``kind`` (``latex``, ``markdown``) text; None when
    the cursor is in no citation's key list."""
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:offset], text[offset:line_end]
    if kind == "latex":
        found = _LATEX_OPEN.search(before)
        if found is None or found.group("command") not in CITE_COMMANDS:
            return None
        typed = found.group("keys").rsplit(",", 1)[-1]
        key_start = offset - len(typed.lstrip())
        key_end = offset + _LATEX_KEY_REST.match(after).end()  # type: ignore[union-attr]  # matches always
        closed = re.match(r"\s*[,}]", text[key_end:line_end]) is not None
        close = "" if closed else "}"
    else:
        found = _PANDOC_OPEN.search(before)
        if found is None:
            return None
        key_start = line_start + found.start("key")
        key_end = offset + _PANDOC_KEY_REST.match(after).end()  # type: ignore[union-attr]  # matches always
        in_brackets = before.rfind("[") > before.rfind("]")
        closed = not in_brackets or re.match(r"[^\[\]\n]*\]", text[key_end:line_end]) is not None
        close = "" if closed else "]"
    return CitationAt(key_start, key_end, text[:key_start] + "?" + close + text[key_end:])


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, answering a request whose params do not fit its method with the
    JSON-RPC error for it (-32602, its id, the fields at fault): pygls only logs it, and the
    client would wait for an answer forever."""

    def structure_message(self, data: dict) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcInvalidParams as exc:
            if "id" not in data or "method" not in data:
                raise
            fault = exc.__cause__
            said = "; ".join(transform_error(fault)) if isinstance(fault, ClassValidationError) else str(exc)
            self._send_response(data["id"], error=JsonRpcInvalidParams(f"Invalid params: {said}").to_response_error())
            return _ANSWERED

    def handle_message(self, message) -> None:
        if message is not _ANSWERED:
            super().handle_message(message)


_ANSWERED = object()  # a request already answered with its error


class CitegraphServer(LanguageServer):
    """The server: the recommender opened once (on the ranking thread), the settings, the
    ranking thread itself."""

    def __init__(self, open_recommender: Callable[[], tuple[Recommender, CiteModel | None]]) -> None:
        super().__init__("citegraph", __version__, protocol_cls=_Protocol)
        self.ranking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-lsp")
        self.opened: Future = self.ranking.submit(open_recommender)
        self.chosen = EditorSettings.model_validate({})
        self.said_unopened = False

    async def run(self, work, *args):
        """``work(recommender, model, *args)`` on the ranking thread, after the recommender is
        open; cancelling the awaiting request drops it from the queue if it has not started.
        A recommender that could not open is said once (``window/showMessage``): None."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.ranking, self._with_recommender, work, args)
        except CitegraphError as exc:
            if not self.said_unopened:
                self.said_unopened = True
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"citegraph: {exc}"))
            return None

    def _with_recommender(self, work, args):
        recommender, model = self.opened.result()
        return work(recommender, model, *args)

    def report_server_error(self, error: Exception, source) -> None:
        """A message that is not JSON is answered with the parse error (-32700, no id, as JSON-RPC
        says), not shown to the user as the server's failure; the rest as pygls reports them."""
        if isinstance(error, json.JSONDecodeError):
            self.protocol._send_response(None, error=JsonRpcParseError(f"Parse error: {error}").to_response_error())  # type: ignore[arg-type]
            return
        super().report_server_error(error, source)

    def settings(self, given: Any) -> None:
        """The client's settings (:class:`EditorSettings`, or under ``citegraph``) over the
        current ones; a value out of its bounds is one warning in the client's log, and the
        settings stay as they were."""
        if isinstance(given, dict):
            given = given.get("citegraph", given)
        if not isinstance(given, dict):
            return
        try:
            self.chosen = EditorSettings.model_validate({**self.chosen.model_dump(), **given})
        except ValidationError as exc:
            said = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, f"citegraph settings: {said}"))


def create_server(open_recommender: Callable[[], tuple[Recommender, CiteModel | None]]) -> CitegraphServer:
    """The language server; ``open_recommender()`` gives the ``(recommender, cite model or
    None)`` it answers with, called once, on the ranking thread, as the server starts."""
    server = CitegraphServer(open_recommender)

    @server.feature(types.INITIALIZE)
    def initialize(ls: CitegraphServer, params: types.InitializeParams) -> None:
        ls.settings(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(ls: CitegraphServer, params: types.DidChangeConfigurationParams) -> None:
        ls.settings(params.settings)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def opened(ls: CitegraphServer, params: types.DidOpenTextDocumentParams) -> None:
        publish_diagnostics(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def changed(ls: CitegraphServer, params: types.DidChangeTextDocumentParams) -> None:
        publish_diagnostics(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def closed(ls: CitegraphServer, params: types.DidCloseTextDocumentParams) -> None:
        if ls.chosen.diagnostics:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
            )

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["{", ",", "@", "["]))
    async def completion(ls: CitegraphServer, params: types.CompletionParams) -> types.CompletionList | None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        found = _slot_draft(ls, document, params.position)
        if found is None:
            return None
        citation, draft, line, column = found
        answer: SlotAnswer | str | None = await ls.run(_suggest, draft, line, column, ls.chosen.k)
        if not isinstance(answer, SlotAnswer):
            if answer:
                ls.window_log_message(types.LogMessageParams(types.MessageType.Warning, answer))
            return None
        where = types.Range(
            start=document.client_position_at_offset(citation.key_start),
            end=document.client_position_at_offset(citation.key_end),
        )
        return types.CompletionList(
            is_incomplete=False, items=[_item(answer, n, where) for n in range(len(answer.suggestions))]
        )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: CitegraphServer, params: types.HoverParams) -> types.Hover | None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        found = _slot_draft(ls, document, params.position)
        if found is None:
            return None
        citation, draft, line, column = found
        key = document.source[citation.key_start : citation.key_end]
        if not key or key == "?":
            return None
        fit: KeyFit | str | None = await ls.run(_fit, draft, line, column, key, ls.chosen.k)
        if fit is None:
            return None
        where = types.Range(
            start=document.client_position_at_offset(citation.key_start),
            end=document.client_position_at_offset(citation.key_end),
        )
        text = fit if isinstance(fit, str) else _hover_text(fit)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=where)

    @server.command(ADD_ENTRY)
    async def add_entry(ls: CitegraphServer, bibliography: str, entry: str) -> None:
        """Append ``entry`` to the bibliography unless its key is there already."""
        uri = from_fs_path(bibliography)
        if uri is None:
            return
        document = ls.workspace.get_text_document(uri)
        try:
            source = document.source
        except OSError as exc:
            ls.window_show_message(
                types.ShowMessageParams(types.MessageType.Error, f"{bibliography}: cannot read: {exc.strerror}")
            )
            return
        key = re.match(r"@\w+\{([^,\s]+),", entry)
        if key and re.search(r"@\w+\s*\{\s*" + re.escape(key.group(1)) + r"\s*,", source):
            return
        end = document.client_position_at_offset(len(source))
        text = ("\n" if source and not source.endswith("\n") else "") + ("\n" if source.strip() else "") + entry
        edit = types.WorkspaceEdit(
            changes={uri: [types.TextEdit(range=types.Range(start=end, end=end), new_text=text)]}
        )
        await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="citegraph: add entry"))

    return server


def _kind(document: TextDocument) -> str | None:
    path = to_fs_path(document.uri)
    return FORMATS.get(Path(path).suffix.lower()) if path else None


def _slot_draft(ls: CitegraphServer, document: TextDocument, position: types.Position):
    """The citation at ``position``, the draft with it a slot, and the slot's 1-based line and
    column; None outside a citation, or when the draft cannot be read (said in the log)."""
    kind = _kind(document)
    path = to_fs_path(document.uri)
    if kind not in ("latex", "markdown") or path is None:
        return None
    offset = document.offset_at_position(position)
    found = citation_at(document.source, offset, kind)
    if found is None:
        return None
    line = document.source.count("\n", 0, offset) + 1
    column = offset - (document.source.rfind("\n", 0, offset) + 1) + 1
    try:
        draft = read_draft(Path(path), text=found.as_slot, format=kind)
    except CitegraphError as exc:
        ls.window_log_message(types.LogMessageParams(types.MessageType.Warning, str(exc)))
        return None
    return found, draft, line, column


def _suggest(
    recommender: Recommender, model: CiteModel | None, draft: Draft, line: int, column: int, k: int
) -> SlotAnswer | str:
    """The slot's answer, or why there is none (a slot without words to search with …)."""
    try:
        return suggest_at(recommender, draft, slot_at(draft, line, column), k=k, model=model)
    except CitegraphError as exc:
        return str(exc)


def _fit(
    recommender: Recommender, model: CiteModel | None, draft: Draft, line: int, column: int, key: str, k: int
) -> KeyFit | str:
    try:
        return fit_of(recommender, draft, slot_at(draft, line, column), key, k=k, model=model)
    except CitegraphError as exc:
        return str(exc)


def _item(answer: SlotAnswer, n: int, where: types.Range) -> types.CompletionItem:
    keyed = answer.suggestions[n]
    found = keyed.suggestion
    authors = ", ".join(keyed.authors[:3]) + (" et al." if len(keyed.authors) > 3 else "")
    reasons = "\n".join(f"- {line}" for line in found.explanation or [])
    adds = keyed.bibtex is not None and answer.bibliography is not None
    note = (
        f"\n\nNot in the bibliography: choosing it appends its entry to {Path(answer.bibliography).name}."
        if adds and answer.bibliography
        else "\n\nNot in the bibliography (the draft names none)."
        if keyed.bibtex is not None
        else ""
    )
    return types.CompletionItem(
        label=keyed.key,
        kind=types.CompletionItemKind.Reference,
        detail=" – ".join(part for part in (authors, str(found.year or ""), found.title) if part),
        documentation=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value=f"**{found.title}** ({found.id})\n\n{reasons}{note}"
        ),
        sort_text=f"{n:03d}",
        filter_text=keyed.key,
        text_edit=types.TextEdit(range=where, new_text=keyed.key),
        command=types.Command(
            title="Add to the bibliography", command=ADD_ENTRY, arguments=[answer.bibliography, keyed.bibtex]
        )
        if adds
        else None,
        data={"id": found.id},
    )


def _hover_text(fit: KeyFit) -> str:
    if fit.paper is None:
        return f"`{fit.key}` ({fit.entry}): not in the graph — {fit.how}"
    paper = fit.paper
    authors = ", ".join(paper.authors[:3]) + (" et al." if len(paper.authors) > 3 else "")
    head = " – ".join(part for part in (f"**{paper.title}**", authors, str(paper.year or ""), paper.id) if part)
    fate = fit.fate
    if fate is None:
        return head
    if fate.why_not is None:
        verdict = f"Fits this sentence: rank {fate.rank} of {fate.of} here."
    else:
        verdict = f"Does not fit this sentence well: {fate.why_not}."
    reasons = "\n".join(f"- {line}" for line in fate.explanation)
    return f"{head}\n\n{verdict}\n\n{reasons}".rstrip()


def publish_diagnostics(ls: CitegraphServer, uri: str) -> None:
    """A key the bibliography lacks, an empty ``\\cite{}`` (when the client asked for them)."""
    if not ls.chosen.diagnostics:
        return
    document = ls.workspace.get_text_document(uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics(document)))


def diagnostics(document: TextDocument) -> list[types.Diagnostic]:
    kind = _kind(document)
    path = to_fs_path(document.uri)
    if kind not in ("latex", "markdown") or path is None:
        return []
    text = document.source
    try:
        draft = read_draft(Path(path), text=text, format=kind)
    except CitegraphError as exc:
        if "no citation slot" in str(exc):  # nothing to say about a draft with no empty nor unknown citation
            return []
        start = types.Position(line=0, character=0)
        return [_diagnostic(types.Range(start=start, end=start), str(exc), types.DiagnosticSeverity.Error)]
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    found = []
    for slot in draft.slots:
        if str(slot.file) != draft.source or slot.line is None or slot.column is None:
            continue
        at = starts[slot.line - 1] + slot.column - 1
        citation = _LATEX_CITATION.match(text, at) if kind == "latex" else None
        end = citation.end() if citation else at + len(slot.command)
        if citation is not None and not citation.group("keys").strip():
            where = types.Range(
                start=document.client_position_at_offset(at), end=document.client_position_at_offset(end)
            )
            found.append(_diagnostic(where, f"empty {slot.command}{{}}: no key", types.DiagnosticSeverity.Warning))
        for key in slot.unresolved:
            hit = re.compile(r"(?<![\w:.-])" + re.escape(key) + r"(?![\w:.-])").search(text, at, end)
            start, stop = (hit.start(), hit.end()) if hit else (at, end)
            where = types.Range(
                start=document.client_position_at_offset(start), end=document.client_position_at_offset(stop)
            )
            bibs = ", ".join(b.name for b in draft.bibliographies)
            found.append(
                _diagnostic(where, f"key {key!r} is not in the bibliography ({bibs})", types.DiagnosticSeverity.Error)
            )
    return found


def _diagnostic(where: types.Range, message: str, severity: types.DiagnosticSeverity) -> types.Diagnostic:
    return types.Diagnostic(range=where, message=message, severity=severity, source="citegraph")


def serve_lsp(config: Config, retrievers, model: Path | None = None, cite_model: Path | None = None) -> None:
    """Open the recommender on ``config``'s graph (once, on the ranking thread) and answer the
    editor on stdin/stdout until it exits; the recommender closed at the end."""
    import sys
    from contextlib import ExitStack

    from ..recommend import Recommender
    from ..recommend.cite import CiteModel

    protocol = protocol_stdout()
    resources = ExitStack()

    def open_recommender():
        recommender = resources.enter_context(Recommender.open(config, retrievers, model))
        reranker = CiteModel(cite_model, recommender, config.data_folder("embeddings")) if cite_model else None
        return recommender, reranker

    server = create_server(open_recommender)
    try:
        server.start_io(stdin=sys.stdin.buffer, stdout=protocol)
    finally:
        server.ranking.shutdown(cancel_futures=True)
        resources.close()
