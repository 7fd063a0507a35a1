"""Semantic Scholar's Academic Graph API, as `citegraph grow` asks it
(https://api.semanticscholar.org/api-docs/graph).

- ``GET /paper/{id}``: a paper by ``DOI:…``, ``ARXIV:…``, ``ACL:…``, ``CorpusId:…`` or its
  40-hex ``paperId`` (``fields=externalIds,title,year``): how an arXiv, ACL Anthology or S2
  id is turned into a DOI OpenAlex knows;
- ``GET /paper/search/match?query=…``: the one paper whose title best matches (404 "Title
  match not found" when none does);
- ``GET /paper/{id}/citations?fields=contexts,intents,isInfluential,externalIds,title``:
  the citing papers with the sentences that cite it, :data:`PAGE` a page, following each
  answer's ``next`` offset until it has none (``{"offset", "next", "data": [{"contexts",
  "intents", "isInfluential", "citingPaper": {…}}]}``).

Rate: with a key (header ``x-api-key``) S2 grants 1 request a second; without one a pool
shared by everyone, 100 requests in 5 minutes.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .remote import Api, Remote, RemoteError

PAPER_FIELDS = "externalIds,title,year"
CITATION_FIELDS = "contexts,intents,isInfluential,externalIds,title,year"
PAGE = 1000  # the most a citations page holds


def api(base_url: str, key: str | None) -> Api:
    if key:
        return Api("Semantic Scholar", base_url, 1, 1.0, secret_headers={"x-api-key": key})
    return Api("Semantic Scholar", base_url, 100, 300.0)


class SemanticScholar:
    def __init__(self, remote: Remote):
        self.remote = remote

    def paper(self, key: str) -> dict[str, Any] | None:
        """A paper by one of its ids (``DOI:…``, ``ARXIV:…``, ``ACL:…``, a paperId); None when S2 has none."""
        path = f"/paper/{quote(key, safe=':/')}"  # a DOI may hold ?, # or <
        return self._object(path, {"fields": PAPER_FIELDS})

    def match(self, title: str) -> dict[str, Any] | None:
        """S2's best title match, or None."""
        params = {"query": title[:300], "fields": PAPER_FIELDS}
        found = self._object("/paper/search/match", params)
        data = found.get("data") if found else None
        if found is not None and not isinstance(data, list):
            raise RemoteError(f"{self.remote.describe('/paper/search/match', params)}: expected a list 'data'")
        return data[0] if data and isinstance(data[0], dict) else None

    def citations(self, key: str) -> list[dict[str, Any]]:
        """Every citation of the paper ``key`` with its contexts and intents (none when S2 has no such paper)."""
        path = f"/paper/{quote(key, safe=':/')}/citations"
        found: list[dict[str, Any]] = []
        offset: int | None = 0
        while offset is not None:
            params = {"fields": CITATION_FIELDS, "offset": str(offset), "limit": str(PAGE)}
            page = self._object(path, params)
            if page is None:
                return found
            data, following = page.get("data"), page.get("next")
            said = self.remote.describe(path, params)
            if not isinstance(data, list) or not all(isinstance(c, dict) for c in data):
                raise RemoteError(f"{said}: expected a list of citations 'data'")
            if following is not None and (not isinstance(following, int) or following <= offset):
                raise RemoteError(f"{said}: 'next' is not an offset after {offset}")
            found += data
            offset = following if data else None
        return found

    def _object(self, path: str, params: dict[str, str]) -> dict[str, Any] | None:
        found = self.remote.get(path, params)
        if found is not None and not isinstance(found, dict):
            raise RemoteError(f"{self.remote.describe(path, params)}: expected a JSON object")
        return found
