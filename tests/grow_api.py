"""OpenAlex and Semantic Scholar on the loopback: a real HTTP server (a thread) answering
`citegraph grow`'s requests from the works and papers recorded in ``tests/fixtures/grow/``,
in the shapes the APIs document:

- OpenAlex (under ``/openalex``): ``/works/{W…|doi:…}`` (404 ``{"error", "message"}``),
  ``/works?filter=openalex:…|doi:…|cites:…|title.search:…`` with ``sort=cited_by_count:desc``,
  ``select=``, ``per-page`` (≤ 200) and cursor paging (``meta.next_cursor``, null at the end);
- Semantic Scholar (under ``/s2/graph/v1``): ``/paper/{DOI:…|ARXIV:…|paperId}``,
  ``/paper/search/match?query=`` (404 "Title match not found"), ``/paper/{id}/citations``
  paged by ``offset``/``limit``, at most :attr:`ApiServer.s2_page` a page whatever is asked
  (the client must follow ``next``, absent on the last page).

Each request is recorded (time, path, query, headers). :meth:`ApiServer.fail` queues bad
answers for the next requests whose path holds a text: a status with headers, a body cut
short, malformed JSON.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "grow"


@dataclass
class Seen:
    at: float
    api: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    raw: str  # the request line's target, as sent


@dataclass
class Fault:
    within: str  # a text of the path (and query) it answers
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    truncated: bool = False  # a Content-Length larger than the body, then the connection closed


def _norm(title: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.casefold()).split())


class ApiServer:
    s2_page = 100

    def __init__(self, folder: Path = FIXTURES):
        self.works = {w["id"].rsplit("/", 1)[1]: w for w in json.loads((folder / "openalex_works.json").read_text())}
        self.papers = json.loads((folder / "s2_papers.json").read_text())
        self.seen: list[Seen] = []
        self.faults: list[Fault] = []
        self.delay = 0.0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                server.answer(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ApiServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def openalex_url(self) -> str:
        return f"{self.url}/openalex"

    @property
    def s2_url(self) -> str:
        return f"{self.url}/s2/graph/v1"

    def env(self) -> dict[str, str]:
        return {"CITEGRAPH_OPENALEX_URL": self.openalex_url, "CITEGRAPH_S2_URL": self.s2_url}

    def fail(self, within: str, *faults: Fault) -> None:
        for fault in faults:
            self.faults.append(Fault(within, fault.status, fault.headers, fault.body, fault.truncated))

    def count(self, api: str | None = None) -> int:
        return sum(api is None or s.api == api for s in self.seen)

    # -- answering ------------------------------------------------------------------------
    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        path = unquote(parts.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        api = "openalex" if path.startswith("/openalex/") else "s2"
        with self._lock:
            self.seen.append(Seen(time.monotonic(), api, path, query, dict(handler.headers), handler.path))
            fault = next((f for f in self.faults if f.within in handler.path or f.within in path), None)
            if fault is not None:
                self.faults.remove(fault)
        if self.delay:
            time.sleep(self.delay)
        if fault is not None:
            return self._send(handler, fault.status, fault.body, fault.headers, fault.truncated)
        if api == "openalex":
            status, body = self._openalex(path.removeprefix("/openalex"), query)
        else:
            status, body = self._s2(path.removeprefix("/s2/graph/v1"), query)
        self._send(handler, status, json.dumps(body).encode())

    @staticmethod
    def _send(handler, status: int, body: bytes, headers: dict | None = None, truncated: bool = False) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body) + (1000 if truncated else 0)))
        if truncated:
            handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()
        if truncated:
            handler.close_connection = True

    def _select(self, work: dict, query: dict) -> dict:
        fields = query.get("select")
        return {k: v for k, v in work.items() if k in fields.split(",")} if fields else work

    def _openalex(self, path: str, query: dict) -> tuple[int, object]:
        if path.startswith("/works/"):
            key = path.removeprefix("/works/")
            work = self._by_doi(key[4:]) if key.lower().startswith("doi:") else self.works.get(key.upper())
            if work is None:
                return 404, {"error": "Not found", "message": f"Work {key} not found"}
            return 200, self._select(work, query)
        if path != "/works":
            return 404, {"error": "Not found"}
        name, _, value = query.get("filter", "").partition(":")
        if name == "openalex":
            found = [self.works[i] for i in value.split("|") if i in self.works]
        elif name == "doi":
            found = [w for d in value.split("|") if (w := self._by_doi(d))]
        elif name == "cites":
            found = [w for w in self.works.values() if f"https://openalex.org/{value}" in w["referenced_works"]]
        elif name == "title.search":
            words = set(_norm(value).split())
            found = [w for w in self.works.values() if words & set(_norm(w["title"]).split())]
        else:
            return 400, {"error": "Invalid query parameters error.", "message": f"{name} is not a valid field"}
        if query.get("sort") == "cited_by_count:desc":
            found.sort(key=lambda w: -w["cited_by_count"])
        per_page = int(query.get("per-page", 25))
        if not 1 <= per_page <= 200:
            return 400, {"error": "Invalid query parameters error.", "message": "per-page is between 1 and 200"}
        cursor = query.get("cursor")
        start = 0 if cursor in (None, "*") else int(base64.b64decode(cursor))
        page = found[start : start + per_page]
        more = start + per_page < len(found)
        next_cursor = base64.b64encode(str(start + per_page).encode()).decode() if more and cursor else None
        meta = {"count": len(found), "db_response_time_ms": 1, "page": None, "per_page": per_page}
        return 200, {"meta": {**meta, "next_cursor": next_cursor}, "results": [self._select(w, query) for w in page]}

    def _by_doi(self, doi: str) -> dict | None:
        doi = doi.lower().removeprefix("https://doi.org/")
        return next((w for w in self.works.values() if w["doi"] and w["doi"].lower() == f"https://doi.org/{doi}"), None)

    def _paper(self, key: str) -> dict | None:
        kind, _, value = key.partition(":")
        for paper in self.papers:
            ids = paper["externalIds"]
            if (
                (kind == "DOI" and ids.get("DOI", "").lower() == value.lower())
                or (kind == "ARXIV" and ids.get("ArXiv") == value)
                or paper["paperId"] == key
            ):
                return paper
        return None

    def _s2(self, path: str, query: dict) -> tuple[int, object]:
        public = ("paperId", "externalIds", "title", "year")
        if path == "/paper/search/match":
            found = [p for p in self.papers if _norm(p["title"]) == _norm(query.get("query", ""))]
            if not found:
                return 404, {"error": "Title match not found"}
            return 200, {"data": [{**{k: found[0][k] for k in public}, "matchScore": 181.3}]}
        if path.endswith("/citations"):
            paper = self._paper(path.removeprefix("/paper/").removesuffix("/citations"))
            if paper is None:
                return 404, {"error": "Paper not found"}
            offset, limit = int(query.get("offset", 0)), int(query.get("limit", 100))
            if limit > 1000:
                return 400, {"error": "limit must be <= 1000"}
            size = min(limit, self.s2_page)
            data = paper["citations"][offset : offset + size]
            page = {"offset": offset, "data": data}
            if offset + size < len(paper["citations"]):
                page["next"] = offset + size
            return 200, page
        paper = self._paper(path.removeprefix("/paper/"))
        if paper is None:
            return 404, {"error": "Paper with id " + path.removeprefix("/paper/") + " not found"}
        return 200, {k: paper[k] for k in public}
