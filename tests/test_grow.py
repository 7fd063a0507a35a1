"""`citegraph grow` end to end: the command line against OpenAlex and Semantic Scholar on the
loopback (:mod:`grow_api`, the recorded fixtures in tests/fixtures/grow/) and the session's
real ArcadeDB Bolt server. Nothing reaches the network."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grow_api import FIXTURES, ApiServer, Fault
from test_bulk import dump

from conftest import citegraph, citegraph_ok

pytestmark = pytest.mark.server

BIB = str(FIXTURES / "refs.bib")
FULL = ("--from", BIB, "--cited-by", "--contexts")
SEEDS = {"W100", "W101", "W102"}
REFERENCES = {f"W{n}" for n in range(200, 207)}
CITING = {f"W{n}" for n in range(300, 306)} | {f"W{n}" for n in range(1000, 1250)}
KEY, S2_KEY = "oa-sekrit-7f3a9c", "s2-sekrit-41d2e8"


@pytest.fixture
def api():
    with ApiServer() as server:
        yield server


@pytest.fixture
def env(server_env, api, tmp_path) -> dict[str, str]:
    """A grow command's environment: the session's graph server, the loopback APIs, a data folder of its own."""
    return {**server_env, **api.env(), "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}


def grow(env: dict, *args: str) -> dict:
    done = citegraph_ok("grow", *args, "--format", "json", "--no-progress", env=env)
    return json.loads(done.stdout)


def papers(graph) -> dict[str, dict]:
    nodes, _ = graph
    found = [(labels, json.loads(props)) for labels, props in nodes if "Paper" in labels]
    return {p["id"]: {**p, "external": "External" in labels} for labels, p in found}


def cites(graph) -> dict[tuple[str, str], dict]:
    _, rels = graph
    edges = [((s, t), json.loads(p)) for kind, s, t, p in rels if kind == "CITES"]
    assert len(edges) == len(dict(edges)), "an edge written twice"
    return dict(edges)


def test_grow_from_a_bib_writes_works_references_citing_works_and_contexts_once(store, api, env):
    answer = grow(env, *FULL)
    assert [(s["work"], s["how"]) for s in answer["seeds"]] == [
        ("W100", "DOI"),
        ("W101", "arXiv id"),
        ("W102", "title via Semantic Scholar (score 100)"),
        (None, "not found by title within 88 of similarity"),
    ]
    assert (answer["works"], answer["references"], answer["citing"]) == (266, 7, 256)
    assert answer["requests"] == {"OpenAlex": 9, "Semantic Scholar": 6} and answer["cached"] == 0
    graph = dump(store)
    found = papers(graph)
    assert {i for i, p in found.items() if not p["external"]} == SEEDS | REFERENCES | CITING
    assert found["W100"]["title"] == "Citation Recommendation with Graph Walks" and found["W100"]["year"] == 2019
    assert found["W101"]["arxiv_id"] == "2101.00001"
    edges = cites(graph)
    assert {t for (s, t) in edges if s == "W100"} == {"W200", "W201", "W202", "W203"}
    assert {s for (s, t) in edges if t == "W102"} == {f"W{n}" for n in range(1000, 1250)}
    with_contexts = {e: p for e, p in edges.items() if p.get("contexts")}
    assert len(with_contexts) == answer["contexts"] == 156
    first = edges[("W300", "W100")]
    assert first["contexts"] == [
        "Earlier work ranks candidates by walks over the graph ([CIT]), which we extend in part 1."
    ]
    assert (first["intents"], first["influential"], first["n_contexts"]) == (["methodology"], True, 1)
    assert edges[("W305", "W101")]["contexts"] == [
        "Citing sentences help retrieval [CIT].",
        "We follow [CIT] and read contexts.",
    ]
    assert edges[("W305", "W101")]["intents"] == ["background", "methodology"]
    assert edges[("W1017", "W102")]["contexts"] == [
        "[CIT] learned which papers to cite with graph networks; study 18 builds on it."
    ]
    assert ("W1000", "W100") not in edges  # S2 lists it, OpenAlex does not: no edge, no contexts
    assert answer["contexts_left"] == {"citing paper not among the works": 1, "citation OpenAlex does not list": 1}

    again = grow(env, *FULL)
    assert again["requests"] == {"OpenAlex": 0, "Semantic Scholar": 0} and again["cached"] == 15
    assert (again["nodes_created"], again["relationships_created"]) == (0, 0)
    assert dump(store) == graph


def test_the_text_output_names_the_unresolved_and_the_requests(store, api, env):
    done = citegraph_ok("grow", "--from", BIB, "--no-progress", env=env)
    assert "grow: 3 of 4 seeds resolved" in done.stdout
    assert f"unresolved: {BIB}:22 (nobody2022): not found by title within 88 of similarity" in done.stdout
    assert "requests to OpenAlex" in done.stdout


@pytest.mark.parametrize("when", ["fetching", "writing"])
def test_a_run_killed_then_run_again_makes_the_graph_an_uninterrupted_run_makes(
    store, api, env, arcade_server, tmp_path, when
):
    command = [sys.executable, "-m", "citegraph.cli", "grow", *FULL, "--no-progress"]
    api.delay = 0.2 if when == "fetching" else 0.0
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staged = Path(env["CITEGRAPH_DATA_DIR"]) / "grow"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if api.count() >= 6 if when == "fetching" else any(staged.glob("works-*.jsonl")):
            break
        time.sleep(0.01)
    assert process.poll() is None, "the run ended before it was killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    asked = api.count()
    api.delay = 0.0
    resumed = grow(env, *FULL)
    again = sum(resumed["requests"].values())
    # what was answered before the kill is not asked again (an answer in flight is)
    assert (15 - asked <= again < 15) if when == "fetching" else again == 0
    interrupted = dump(store)

    arcade_server.recreate_database()
    grow({**env, "CITEGRAPH_DATA_DIR": str(tmp_path / "fresh")}, *FULL)
    assert dump(store) == interrupted


def test_keys_are_used_but_never_in_argv_output_logs_or_files(store, api, env):
    keyed = {**env, "CITEGRAPH_OPENALEX_KEY": KEY, "CITEGRAPH_S2_KEY": S2_KEY, "CITEGRAPH_OPENALEX_MAILTO": "me@x.org"}
    help_text = citegraph_ok("grow", "--help", env=keyed).stdout
    assert "CITEGRAPH_OPENALEX_KEY" in help_text and "--key" not in help_text and "--api-key" not in help_text
    done = citegraph_ok("grow", "--from", BIB, "--no-progress", env=keyed)
    assert all(s.query.get("api_key") == KEY for s in api.seen if s.api == "openalex")
    assert all(s.headers.get("x-api-key") == S2_KEY for s in api.seen if s.api == "s2")
    echo = json.dumps({"error": "Invalid", "message": f"echoing api_key={KEY}&mailto=me@x.org"}).encode()
    api.fail("/works/W205", Fault("", 400, body=echo))
    failed = citegraph("grow", "W205", "--no-progress", env=keyed)
    assert failed.returncode == 1
    assert failed.stderr.strip().splitlines()[-1].startswith("Error: OpenAlex GET /works/W205?select=")
    said = done.stdout + done.stderr + failed.stdout + failed.stderr + " ".join(failed.args)
    assert "answered 400: Invalid echoing api_key=***" in said
    files = [p for p in Path(keyed["CITEGRAPH_DATA_DIR"]).rglob("*") if p.is_file()]
    assert any("cache" in p.parts for p in files) and any(p.name.startswith("works-") for p in files)
    for secret in (KEY, S2_KEY):
        assert secret not in said
        assert not [p for p in files if secret.encode() in p.read_bytes()]


def test_a_bad_answer_is_one_line_and_leaves_the_graph_as_it_was(store, api, env):
    grow(env, "W100")
    before = dump(store)
    api.fail("cites%3AW100", Fault("", 200, body=b'{"meta": {"next_cursor": null}, "results": [{"id": '))
    failed = citegraph("grow", "W100", "--cited-by", "--no-progress", env=env)
    assert failed.returncode == 1
    lines = failed.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: OpenAlex GET /works?cursor=%2A&filter=cites%3AW100")
    assert "answered malformed JSON" in lines[-1] and "Traceback" not in failed.stderr
    assert dump(store) == before


def test_a_429_and_a_503_within_a_run_are_waited_out(store, api, env):
    api.fail("/works/W100", Fault("", 429, {"Retry-After": "1"}))
    api.fail("cites%3AW100", Fault("", 503))
    answer = grow(env, "W100", "--cited-by")
    assert answer["works"] == 1 + 4 + 5 and answer["requests"]["OpenAlex"] == 3 + 2


def test_a_work_with_a_huge_reference_list_is_written_whole(store, api, env):
    answer = grow(env, "https://openalex.org/W103", "--max", "5")
    assert answer["works"] == 1 and answer["requests"]["OpenAlex"] == 1 + 1500 // 50
    edges = cites(dump(store))
    assert len(edges) == 1500 and {s for s, _ in edges} == {"W103"}


def test_a_second_hop_adds_what_the_first_hop_s_works_lead_to(store, api, env):
    one = grow(env, "W100", "--cited-by")
    assert one["works"] == 1 + 4 + 5
    two = grow(env, "W100", "--cited-by", "--hops", "2")
    # W200 (a reference) is cited by W101 and W205 too; W201 cites only W200, already in
    assert two["works"] == 12 and two["nodes_created"] >= 2
    found = papers(dump(store))
    assert {"W101", "W205"} <= {i for i, p in found.items() if not p["external"]}


def test_max_keeps_the_most_cited(store, api, env):
    answer = grow(env, "W102", "--cited-by", "--max", "4")
    found = papers(dump(store))
    assert answer["works"] == 4
    # W205 (cited 20,000 times) before W1000 (250) and W1001 (249); W206 (12) left a stub
    assert {i for i, p in found.items() if not p["external"]} == {"W102", "W205", "W1000", "W1001"}


def test_offline_with_an_empty_cache_is_one_line_and_writes_nothing(store, api, env):
    failed = citegraph("grow", "--from", BIB, "--offline", "--no-progress", env=env)
    assert failed.returncode == 1 and api.count() == 0
    assert failed.stderr.strip().splitlines()[-1].startswith("Error: OpenAlex GET /works/doi:10.1000/seed1?select=")
    assert "not in the cache, and --offline" in failed.stderr
    assert dump(store) == ([], [])


def test_contexts_without_cited_by_is_refused(store, api, env):
    failed = citegraph("grow", "W100", "--contexts", env=env)
    assert failed.returncode == 2 and "give --cited-by too" in failed.stderr and api.count() == 0


def test_grown_works_are_the_works_the_snapshot_reader_writes(store, api, env, arcade_server, tmp_path):
    grow(env, *FULL[:3])  # no contexts: only what the OpenAlex reader writes
    grown = dump(store)
    ids = {i for i, p in papers(grown).items() if not p["external"]}
    records = [w for w in json.loads((FIXTURES / "openalex_works.json").read_text()) if w["id"].rsplit("/")[-1] in ids]
    part = tmp_path / "snapshot" / "works" / "updated_date=2026-01-01" / "part_000.gz"
    part.parent.mkdir(parents=True)
    part.write_bytes(gzip.compress("".join(json.dumps(w) + "\n" for w in records).encode()))
    arcade_server.recreate_database()
    citegraph_ok("ingest", "openalex", str(part.parents[1]), "--no-progress", env=env)
    assert len(records) == 266 and dump(store) == grown


def test_the_generic_reader_takes_a_reference_s_intents_and_weight(tmp_path):
    from citegraph.ingest import get
    from citegraph.ingest.records import Reference

    path = tmp_path / "contexts.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "W1",
                "references": [{"id": "W2", "contexts": ["a [CIT]"], "intents": ["result"], "influential": True}],
            }
        )
        + "\n"
        + json.dumps({"id": "W3", "references": [{"id": "W2", "influential": "yes"}]})
        + "\n"
    )
    first, bad = list(get("jsonl").read(path))
    assert first.record.references == (Reference("W2", ("a [CIT]",), (), 1, ("result",), True),)
    assert (bad.problem.where.line, bad.problem.field) == (2, "references[0].influential")


def test_the_explorer_grows_a_library_when_the_service_is_started_with_grow(store, api, env, tmp_path):
    import httpx
    from http_service import serving

    grow(env, "W100")  # a graph to serve: one work and its references
    citegraph_ok("index", "bm25", env=env)
    text = (FIXTURES / "refs.bib").read_text()
    library = {"text": text, "name": "refs.bib"}
    with serving(env, tmp_path / "serve.log", "--grow") as (url, _), httpx.Client(base_url=url, timeout=300) as http:
        assert "/explore/grow" in http.get("/openapi.json").json()["paths"]
        assert http.post("/explore/library", json=library).json()["papers"] == ["W100"]
        grown = http.post("/explore/grow", json={**library, "cited_by": True})
        assert grown.status_code == 200, grown.text
        assert (grown.json()["works"], grown.json()["nodes_created"] > 0) == (266, True)
        # the service forgot the papers it had matched against: the grown ones match now
        assert http.post("/explore/library", json=library).json()["papers"] == ["W100", "W101", "W102"]
        mapped = http.post("/explore/map", json={"seeds": ["W102"]}).json()
        assert {"W205", "W1000"} <= {p["id"] for p in mapped}
        refused = http.post("/explore/grow", json={"text": "W100", "name": "ids.txt", "contexts": True})
        assert refused.status_code == 422 and "give --cited-by too" in refused.json()["detail"]
    with serving(env, tmp_path / "plain.log") as (url, _), httpx.Client(base_url=url, timeout=60) as http:
        assert "/explore/grow" not in http.get("/openapi.json").json()["paths"]
        assert http.post("/explore/grow", json=library).status_code in (404, 405)
