"""OpenAlex's Works API, as `citegraph grow` asks it (https://docs.openalex.org).

- ``GET /works/{id}``: one work by its ``W…`` id or ``doi:10.…`` (a singleton: OpenAlex
  counts these free, so a seed's DOI is asked alone rather than in a ``doi:…|…`` list);
- ``GET /works?filter=…``: lists — ``openalex:W1|W2|…`` (an OR of at most
  :data:`OR_VALUES` values), ``cites:W…`` (the works citing one), ``title.search:…`` — read
  by cursor paging (``cursor=*``, then each answer's ``meta.next_cursor`` until it is null or
  the page empty), :data:`PER_PAGE` a page;
- ``select=`` the fields the snapshot reader (:mod:`citegraph.ingest.sources.openalex`)
  reads, so a work fetched here is the Work object a snapshot partition holds and is written
  by that reader.

Rate: OpenAlex documents 10 requests a second at most (its polite pool: ``mailto`` given)
and a daily allowance; a spent allowance answers 429, which the run reports with what
it fetched kept (:mod:`.remote`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from .remote import Api, Remote, RemoteError

#: The Work fields the snapshot reader uses (and `--max` chooses by: cited_by_count, publication_year).
SELECT = (
    "id,doi,title,display_name,publication_year,abstract_inverted_index,referenced_works,authorships,"
    "primary_location,locations,concepts,topics,primary_topic,is_retracted,type,language,cited_by_count"
)
OR_VALUES = 50  # values in one OR filter (a|b|…)
PER_PAGE = 200  # the most a list page holds
RATE = (10, 1.0)  # requests, seconds


def api(base_url: str, mailto: str | None, key: str | None) -> Api:
    return Api(
        "OpenAlex",
        base_url,
        *RATE,
        params={"mailto": mailto} if mailto else {},
        secret_params={"api_key": key} if key else {},
    )


class OpenAlex:
    def __init__(self, remote: Remote):
        self.remote = remote

    def work(self, key: str) -> dict[str, Any] | None:
        """One work by ``W123`` or ``doi:10.…``; None when OpenAlex has none."""
        path = f"/works/{quote(key, safe=':/')}"  # a DOI may hold ?, # or <
        found = self.remote.get(path, {"select": SELECT})
        if found is not None and not isinstance(found, dict):
            raise RemoteError(f"{self.remote.describe(path, {'select': SELECT})}: expected a Work object")
        return found

    def works(self, ids: list[str]) -> list[dict[str, Any]]:
        """The works of ``ids`` (``W…``; at most :data:`OR_VALUES`) that OpenAlex has."""
        return list(self._pages({"filter": f"openalex:{'|'.join(ids)}"}, len(ids)))

    def citing(self, work_id: str, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` works citing ``work_id``, most cited first."""
        return list(self._pages({"filter": f"cites:{work_id}", "sort": "cited_by_count:desc"}, limit))

    def titled(self, title: str, limit: int = 5) -> list[dict[str, Any]]:
        """The works whose title best matches ``title`` (OpenAlex's title search)."""
        words = " ".join(title.replace(",", " ").replace("|", " ").replace(":", " ").split())
        return list(self._pages({"filter": f"title.search:{words}"}, limit)) if words else []

    def _pages(self, params: dict[str, str], limit: int) -> Iterator[dict[str, Any]]:
        """Up to ``limit`` results of a list, page after page (cursor paging)."""
        cursor: str | None = "*"
        given = 0
        while cursor and given < limit:
            asked = {**params, "select": SELECT, "per-page": str(min(PER_PAGE, limit)), "cursor": cursor}
            page = self.remote.get("/works", asked)
            results, cursor = _page(page, self.remote.describe("/works", asked))
            if not results:
                return
            for work in results[: limit - given]:
                given += 1
                yield work


def _page(page: Any, said: str) -> tuple[list[dict[str, Any]], str | None]:
    """A list answer's works and next cursor, checked: ``{"meta": {"next_cursor"}, "results": [...]}``."""
    if not isinstance(page, dict) or not isinstance(page.get("results"), list):
        raise RemoteError(f"{said}: expected an object with a list 'results'")
    meta = page.get("meta")
    cursor = meta.get("next_cursor") if isinstance(meta, dict) else None
    if cursor is not None and not isinstance(cursor, str):
        raise RemoteError(f"{said}: 'meta.next_cursor' is not a string")
    for i, work in enumerate(page["results"]):
        if not isinstance(work, dict) or not isinstance(work.get("id"), str):
            raise RemoteError(f"{said}: results[{i}] is not a Work object with an id")
    return page["results"], cursor
