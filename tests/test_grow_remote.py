"""`citegraph grow`'s API clients against OpenAlex and Semantic Scholar on the loopback
(:mod:`grow_api`, the recorded fixtures): paging, retries, the cache, the rate, the keys.
Nothing reaches the network."""

from __future__ import annotations

import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from grow_api import ApiServer, Fault

from citegraph.grow import openalex_api, s2_api
from citegraph.grow.remote import Remote, RemoteError

KEY = "sekrit-key-0123456789"


@pytest.fixture
def api():
    with ApiServer() as server:
        yield server


def openalex(api: ApiServer, cache, **options) -> openalex_api.OpenAlex:
    return openalex_api.OpenAlex(Remote(openalex_api.api(api.openalex_url, None, None), cache, **options))


def s2(api: ApiServer, cache, key: str | None = None, **options) -> s2_api.SemanticScholar:
    return s2_api.SemanticScholar(Remote(s2_api.api(api.s2_url, key), cache, **options))


def test_cursor_paging_reads_every_page_and_stops_at_a_null_cursor(api, tmp_path):
    citing = openalex(api, tmp_path).citing("W102", 1000)
    assert len(citing) == 250 == len({w["id"] for w in citing})
    pages = [s.query for s in api.seen]
    assert [p["cursor"] for p in pages][0] == "*" and len(pages) == 2
    assert all(p["filter"] == "cites:W102" and p["per-page"] == "200" for p in pages)
    assert pages[0]["select"] == openalex_api.SELECT
    counts = [w["cited_by_count"] for w in citing]
    assert counts == sorted(counts, reverse=True)  # most cited first, as asked


def test_a_limit_stops_paging_early(api, tmp_path):
    assert len(openalex(api, tmp_path).citing("W102", 30)) == 30
    assert api.count() == 1 and api.seen[0].query["per-page"] == "30"


def test_s2_citations_follow_next_whatever_page_size_the_server_gives(api, tmp_path):
    found = s2(api, tmp_path).citations("DOI:10.1000/seed3")
    assert len(found) == 150
    assert [s.query["offset"] for s in api.seen] == ["0", "100"]
    assert all(s.query["limit"] == "1000" for s in api.seen)


def test_a_429_is_retried_after_its_retry_after(api, tmp_path):
    api.fail("/works/W100", Fault("", 429, {"Retry-After": "1"}, b'{"error": "Rate limit exceeded"}'))
    started = time.monotonic()
    work = openalex(api, tmp_path, backoff=0.01).work("W100")
    assert work["title"] == "Citation Recommendation with Graph Walks"
    assert api.count() == 2
    assert api.seen[1].at - api.seen[0].at >= 1.0  # the server's wait, not the 10 ms backoff
    assert time.monotonic() - started < 5


def test_a_5xx_is_retried_with_backoff(api, tmp_path):
    api.fail("/works/W100", Fault("", 503, body=b"<html>busy</html>"), Fault("", 500))
    assert openalex(api, tmp_path, backoff=0.01).work("W100")["id"].endswith("W100")
    assert api.count() == 3


def test_a_5xx_that_lasts_is_one_line_naming_the_request(api, tmp_path):
    api.fail("/works/W100", *[Fault("", 502)] * Remote.attempts)
    with pytest.raises(RemoteError) as failed:
        openalex(api, tmp_path, backoff=0.01).work("W100")
    said = str(failed.value)
    assert "\n" not in said
    assert said.startswith("OpenAlex GET /works/W100?select=") and f"answered 502 ({Remote.attempts} tries)" in said
    assert api.count() == Remote.attempts


def test_a_truncated_body_is_asked_again(api, tmp_path):
    api.fail("/works/W101", Fault("", 200, body=b'{"id": "https://openalex.org/W1', truncated=True))
    assert openalex(api, tmp_path, backoff=0.01).work("W101")["publication_year"] == 2021
    assert api.count() == 2


def test_a_body_truncated_every_time_is_one_line(api, tmp_path):
    api.fail("/works/W101", *[Fault("", 200, body=b'{"id": ', truncated=True)] * Remote.attempts)
    with pytest.raises(
        RemoteError, match=r"^OpenAlex GET /works/W101\?select=\S+: RemoteProtocolError: the connection"
    ):
        openalex(api, tmp_path, backoff=0.01).work("W101")


def test_malformed_json_is_one_line_and_not_kept(api, tmp_path):
    api.fail("cites%3AW100", Fault("", 200, body=b'{"meta": {}, "results": [{"id": "W1",}]}'))
    client = openalex(api, tmp_path)
    with pytest.raises(RemoteError, match=r"^OpenAlex GET /works\?\S+: answered malformed JSON \(Expecting"):
        client.citing("W100", 10)
    assert len(client.citing("W100", 10)) == 5  # asked again: the bad answer was not cached
    assert api.count() == 2


def test_an_answer_of_the_wrong_shape_is_one_line(api, tmp_path):
    api.fail("cites%3AW100", Fault("", 200, body=b'{"meta": {"next_cursor": 7}, "results": []}'))
    with pytest.raises(RemoteError, match="'meta.next_cursor' is not a string"):
        openalex(api, tmp_path).citing("W100", 10)


def test_answers_are_kept_so_a_second_run_asks_nothing(api, tmp_path):
    first = openalex(api, tmp_path).citing("W102", 1000)
    asked = api.count()
    again = openalex(api, tmp_path)
    assert again.citing("W102", 1000) == first and api.count() == asked
    assert again.remote.hits == 2 and again.remote.requests == 0
    assert openalex(api, tmp_path).work("W99999") is None  # a 404 is kept too
    assert openalex(api, tmp_path, offline=True).work("W99999") is None and api.count() == asked + 1


def test_offline_asks_nothing_and_names_what_is_missing(api, tmp_path):
    with pytest.raises(RemoteError, match=r"^OpenAlex GET /works/W100\?select=\S+: not in the cache, and --offline"):
        openalex(api, tmp_path, offline=True).work("W100")
    assert api.count() == 0


def test_a_damaged_cache_file_is_asked_again(api, tmp_path):
    openalex(api, tmp_path).work("W100")
    [kept] = (tmp_path / "openalex").rglob("*.json")
    kept.write_text('{"status": 200, "bo')
    assert openalex(api, tmp_path).work("W100")["id"].endswith("W100") and api.count() == 2


@pytest.mark.parametrize("requests, period", [(10, 1.0)])
def test_the_rate_holds_under_8_concurrent_fetches(api, tmp_path, requests, period):
    assert openalex_api.RATE == (requests, period)  # OpenAlex's documented rate
    client = openalex(api, tmp_path)
    ids = [f"W{n}" for n in range(300, 305)] + [f"W{n}" for n in range(1000, 1035)]  # 40 distinct requests
    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(client.work, ids))
    elapsed = time.monotonic() - started
    assert all(found) and api.count() == 40
    times = sorted(s.at for s in api.seen)
    busiest = max(sum(t <= at < t + period for at in times) for t in times)
    assert busiest <= requests, f"{busiest} requests in {period} s"
    assert elapsed >= (40 - requests) / requests * period * 0.95  # the limiter waited, it did not refuse


def test_s2_s_rate_with_a_key_is_one_a_second(api, tmp_path):
    client = s2(api, tmp_path, KEY)
    keys = ["DOI:10.1000/seed1", "DOI:10.1000/seed3", "ARXIV:2101.00001"]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(client.paper, keys))
    times = sorted(s.at for s in api.seen)
    assert all(b - a >= 0.95 for a, b in zip(times, times[1:]))
    assert all(s.headers.get("x-api-key") == KEY for s in api.seen)


def test_keys_are_sent_but_never_kept_said_or_logged(api, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    client = openalex_api.OpenAlex(Remote(openalex_api.api(api.openalex_url, "me@example.org", KEY), tmp_path))
    assert client.work("W100")
    assert api.seen[0].query["api_key"] == KEY and api.seen[0].query["mailto"] == "me@example.org"
    echoed = json.dumps({"error": "Invalid", "message": f"bad request ?api_key={KEY}&{api.seen[0].raw}"}).encode()
    api.fail("/works/W101", Fault("", 400, body=echoed))  # an API that echoes the request, key and all
    with pytest.raises(RemoteError) as failed:
        client.work("W101")
    assert KEY not in str(failed.value) and "***" in str(failed.value)
    assert str(failed.value).startswith("OpenAlex GET /works/W101?select=")
    kept = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    assert kept and KEY not in kept
    assert KEY not in caplog.text and "W101" in api.seen[-1].raw
    assert KEY not in repr(client.remote.api)


def test_a_retry_after_longer_than_a_run_waits_is_one_line(api, tmp_path):
    api.fail("/works/W100", Fault("", 429, {"Retry-After": "86400"}))
    with pytest.raises(
        RemoteError, match=r"answered 429: the server asks to wait 86,400 s .* what was fetched is kept"
    ):
        openalex(api, tmp_path).work("W100")
    assert api.count() == 1


def test_a_base_url_with_credentials_is_refused_without_showing_it(tmp_path):
    from citegraph.errors import ConfigError

    with pytest.raises(ConfigError) as refused:
        openalex_api.api("https://user:pw@api.example.org", None, None)
    assert "pw" not in str(refused.value)
    with pytest.raises(ConfigError, match="must be http"):
        s2_api.api("ftp://api.example.org", None)


def test_one_remote_counts_requests_across_threads(api, tmp_path):
    client = openalex(api, tmp_path)
    seen = []
    client.remote.on_request = lambda: seen.append(threading.get_ident())
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(client.work, ["W100", "W101", "W102", "W200"]))
    assert client.remote.requests == 4 == len(seen) == api.count()
