"""Hostile-but-honest input (issue 14): every reader against a corpus of bad files, secrets
kept out of process arguments, batches over the Bolt message limit, concurrent and killed
ingests, stale server state, duplicate and unnormalised ids, bad URIs.

The corpus is written by the tests (``HOSTILE``): each case is one bad line among good
ones, for every format of ``FORMATS``; each must give an :class:`InputError` naming file
and line, and leave the graph as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from citegraph.config import Config
from citegraph.errors import CitegraphError, ConfigError, InputError, ServerError
from citegraph.graph import ArcadeServer, Write, open_store
from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.ingest.formats import FORMATS
from citegraph.ingest.taxonomy import BUNDLED

from conftest import ACL200, citegraph, write_jsonl

DEEP = "[" * 100_000 + "]" * 100_000  # nested past Python's recursion limit
HUGE = 2**70  # past a 64-bit integer


def counts(store) -> tuple[dict, dict]:
    labels = {r["label"]: r["count"] for r in store.run("stats/labels") if r["label"] != "IngestCheckpoint"}
    rels = {r["type"]: r["count"] for r in store.run("stats/relationships")}
    return labels, rels


# -- the corpus ---------------------------------------------------------------------------
def _jsonl(good: dict, bad: str) -> dict[str, str]:
    return {"in.jsonl": json.dumps(good) + "\n" + bad + "\n" + json.dumps(good | {"title": "after"}) + "\n"}


GOOD = {"jsonl": {"id": "P1", "title": "t", "year": 2001},
        "s2orc": {"paper_id": "P1", "title": "t", "year": 2001},
        "unarxive": {"paper_id": "2101.00001", "metadata": {"title": "t"}}}
ID_FIELD = {"jsonl": "id", "s2orc": "paper_id", "unarxive": "paper_id"}
JSON_LINES = [  # (case, bad line for an id field and format, line, field, reason)
    ("deep", lambda f, i: '{"%s": "P2", "title": %s}' % (i, DEEP), 2, None, "nested too deeply"),
    ("unterminated", lambda f, i: '{"%s": "P2", "title": "cut}' % i, 2, None, "Invalid control character at column"),
    ("array", lambda f, i: "[1, 2]", 2, None, "expected a JSON object"),
    ("id-type", lambda f, i: '{"%s": {"x": 1}}' % i, 2, "ID", "expected a string"),
    ("nul-bytes", lambda f, i: '{"%s": "P2", "title": "\x00\x00"' % i, 2, None, "malformed JSON"),
    ("huge-year", lambda f, i: '{"%s": "P2", "year": %d}' % (i, HUGE), 2, "year", "out of range"),
    ("digits", lambda f, i: '{"%s": "P2", "year": %s}' % (i, "9" * 5000), 2, None, "malformed JSON"),
]
HOSTILE = [(f"{fmt}-{case}", fmt, _jsonl(GOOD[fmt], bad(fmt, ID_FIELD[fmt])), "in.jsonl", line,
            ID_FIELD[fmt] if field == "ID" else field, reason)
           for fmt in ("jsonl", "s2orc", "unarxive") for case, bad, line, field, reason in JSON_LINES
           if fmt != "unarxive" or case != "huge-year"]
HOSTILE += [(f"{fmt}-{case}", fmt, _jsonl(good, bad(fmt, "id")), "in.jsonl", line, field, reason)
            for fmt, good in (("openalex", {"id": "https://openalex.org/W1", "title": "t"}),
                              ("s2ag", {"corpusid": 1, "title": "t"}))
            for case, bad, line, field, reason in JSON_LINES if field is None]
HOSTILE += [
    ("bibtex-year", "bibtex", {"in.bib": "@article{k1,\n  title = {t},\n  year = {2001}\n}\n\n@article{k2,\n"
                                         "  title = {u},\n  year = {%d}\n}\n" % HUGE}, "in.bib", 8, "year", ""),
    ("bibtex-huge-field", "bibtex", {"in.bib": "@article{k1,\n  title = {t}\n}\n\n@article{k2,\n  title = {u},\n"
                                               "  abstract = {%s}\n}\n" % (r"M{\"u}ller " * 95_326)},
     "in.bib", 7, "abstract", "1,048,586 characters; citegraph reads at most 100,000 of a field"),  # issue 23 §4.5
    ("s2ag-huge-corpusid", "s2ag", _jsonl({"corpusid": 1}, '{"corpusid": %d}' % HUGE), "in.jsonl", 2, "corpusid",
     "out of range"),
    ("unarxive-metadata", "unarxive", _jsonl(GOOD["unarxive"], '{"paper_id": "2101.00002", "metadata": 7}'),
     "in.jsonl", 2, "metadata", "expected an object"),
    ("unarxive-huge-year", "unarxive",
     _jsonl(GOOD["unarxive"], '{"paper_id": "2101.00002", "metadata": {"update_date": "%d-01-01"}}' % HUGE),
     "in.jsonl", 2, "metadata.update_date", ""),
    ("acl200-huge-n_contexts", "acl200", {"edges.tsv": f"citing\tcited\tn_contexts\nA\tB\t1\nA\tC\t{HUGE}\n"},
     "edges.tsv", 3, "n_contexts", "out of range"),
    ("acl200-deep", "acl200", {"papers.jsonl": '{"paper_id": "A"}\n{"paper_id": "B", "x": %s}\n' % DEEP},
     "papers.jsonl", 2, None, "nested too deeply"),
    ("acl200-huge-year", "acl200", {"papers.jsonl": '{"paper_id": "A"}\n{"paper_id": "B", "year": "%d"}\n' % HUGE},
     "papers.jsonl", 2, "year", "out of range"),
    ("taxonomy-columns", "taxonomy", {"arxiv_categories.tsv": "category\tname\tarchive\tgroup\tgroup_name\tis_active\n"
                                      "cs.CL\tComputation and Language\tcs\n"},
     "arxiv_categories.tsv", 2, None, "expected 6 columns"),
    ("taxonomy-xml", "taxonomy", {"acm_ccs2012.xml": "<rdf:RDF>\n<skos:Concept>\n"}, "acm_ccs2012.xml", 1, None,
     "malformed XML: unbound prefix"),
]


def _folder(fmt: str, files: dict[str, str], tmp_path: Path) -> Path:
    """The input: a good folder of the format with ``files`` replaced, or the one file."""
    if fmt in ("acl200", "taxonomy"):
        folder = tmp_path / fmt
        shutil.copytree(ACL200 if fmt == "acl200" else BUNDLED, folder)
        for name, content in files.items():
            for stale in (folder / name, folder / f"{name}.gz"):
                stale.unlink(missing_ok=True)
            (folder / name).write_text(content, encoding="utf-8")
        return folder
    if fmt == "scisummnet":
        folder = tmp_path / fmt
        shutil.copytree(Path(__file__).parent / "fixtures" / "scisummnet" / "W98-0705", folder / "W98-0705")
        for name, content in files.items():
            (folder / name).write_text(content, encoding="utf-8")
        return folder
    [(name, content)] = files.items()
    if fmt == "s2ag":  # a release: the dataset is named by the shard's folder
        (tmp_path / "release" / "papers").mkdir(parents=True)
        (tmp_path / "release" / "papers" / name).write_text(content, encoding="utf-8")
        return tmp_path / "release"
    (tmp_path / name).write_text(content, encoding="utf-8")
    return tmp_path / name


_TOPIC = {"id": "https://openalex.org/T10181", "display_name": "NLP", "score": 0.99,
          "subfield": {"id": "https://openalex.org/subfields/1702", "display_name": "Artificial Intelligence"},
          "field": {"id": "https://openalex.org/fields/17", "display_name": "Computer Science"},
          "domain": {"id": "https://openalex.org/domains/3", "display_name": "Physical Sciences"}}
_WORK = {"id": "https://openalex.org/W1", "title": "t", "topics": [_TOPIC], "primary_topic": _TOPIC}
HOSTILE += [  # OpenAlex topics: the good works carry a topic tree, the bad one a broken topic
    (f"openalex-topic-{case}", "openalex", _jsonl(_WORK, json.dumps(_WORK | {"id": "https://openalex.org/W2"} | bad)),
     "in.jsonl", 2, field, reason)
    for case, bad, field, reason in [
        ("score", {"topics": [_TOPIC | {"score": "high"}]}, "topics[0].score", "expected a number"),
        ("not-an-object", {"topics": [_TOPIC, "T10028"]}, "topics[1]", "expected an object"),
        ("level-id", {"primary_topic": _TOPIC | {"field": {"id": "https://openalex.org/domains/3"}}},
         "primary_topic.field.id", "expected a field id"),
        ("topic-id", {"primary_topic": _TOPIC | {"id": None}}, "primary_topic.id", "expected a topic id"),
        ("huge-score", {"topics": [_TOPIC | {"score": HUGE * 1e300}]}, "topics[0].score", "expected a number"),
    ]]
_CITANCE = '{"citance_No": %s, "citing_paper_id": "W00-1102", "raw_text": "x (Gonzalo et al., 1998) y.", ' \
           '"clean_text": %s}'
HOSTILE += [  # a ScisummNet folder: the real W98-0705 with one file replaced
    ("scisummnet-deep", "scisummnet", {"W98-0705/citing_sentences.json": "[\n" + _CITANCE % (1, DEEP) + "\n]\n"},
     "citing_sentences.json", 2, None, "nested too deeply"),
    ("scisummnet-huge-citance", "scisummnet",
     {"W98-0705/citing_sentences.json": "[\n" + _CITANCE % (HUGE, '"x"') + "\n]\n"},
     "citing_sentences.json", 2, "citance_No", "out of range"),
    ("scisummnet-xml", "scisummnet", {"W98-0705/Reference_XML/W98-0705.xml": "<PAPER>\n<S sid=\"0\">t</S>\n"},
     "W98-0705.xml", 3, None, "malformed XML"),
]
NOT_YET: set[str] = set()


def test_the_corpus_covers_every_reader():
    assert {case[1] for case in HOSTILE} == set(FORMATS) - NOT_YET


@pytest.mark.parametrize("name,fmt,files,bad_file,line,field,reason", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_every_reader_locates_hostile_input_and_writes_nothing(store, tmp_path, name, fmt, files, bad_file, line,
                                                                field, reason):
    path = _folder(fmt, files, tmp_path)
    with pytest.raises(InputError) as raised:
        ingest(store, formats.get(fmt), [path], IngestOptions(batch_size=1))
    problem = raised.value.problem
    assert (problem.where.path.name, problem.where.line, problem.field) == (bad_file, line, field), str(problem)
    assert reason in problem.reason and " at at " not in problem.reason
    assert str(raised.value).startswith(f"{problem.where.path}:{line}:")
    assert counts(store) == ({}, {})


def test_skip_bad_skips_deep_and_oversized_lines(store, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "P1"}\n{"id": "P2", "x": %s}\n{"id": "P3", "year": %d}\n{"id": "P4"}\n' % (DEEP, HUGE))
    summary = ingest(store, formats.get("jsonl"), [path], IngestOptions(skip_bad=True, rejects=tmp_path / "r.jsonl"))
    assert summary.rejected == 2
    assert counts(store) == ({"Paper": 2}, {})


# -- 1. secrets ---------------------------------------------------------------------------
def test_no_process_argument_holds_the_root_password(arcade_server):
    password = arcade_server.password()
    server = psutil.Process(arcade_server.status().pid)
    assert "com.arcadedb.server.ArcadeDBServer" in server.cmdline()
    assert not [arg for arg in server.cmdline() if password in arg]
    assert stat.S_IMODE((arcade_server.home / "credentials").stat().st_mode) == 0o600


def test_the_data_directory_is_private_under_a_permissive_umask(tmp_path):
    old = os.umask(0o022)
    try:
        server = ArcadeServer(tmp_path / "data" / "arcadedb")
        server.password()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
    assert stat.S_IMODE(server.home.stat().st_mode) == 0o700


# -- 2. batches over the Bolt message limit --------------------------------------------------
def test_a_batch_over_the_bolt_message_limit_is_split_not_hung(store, server_env, tmp_path):
    """2,000 lines with 10 KB abstracts: 20 MB in one default batch, over ArcadeDB's 16 MiB."""
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps({"id": f"P{i}", "abstract": "word " * 2000, "references": [f"P{i - 1}"]})
                            + "\n" for i in range(1, 2001)))
    done = citegraph("ingest", "jsonl", str(path), "--no-progress", env=server_env, timeout=240)
    assert done.returncode == 0, done.stderr
    assert counts(store) == ({"Paper": 2001, "External": 1}, {"CITES": 2000})


def test_one_record_over_the_limit_is_refused_before_it_is_sent(store):
    started = time.monotonic()
    with pytest.raises(CitegraphError, match="over the graph server's message limit"):
        store.write(Write("ingest/papers", {"ingested": "2024-01-01", "rows": [{"id": "P1", "props": {"abstract": "x" * (20 << 20)}}]}))
    assert time.monotonic() - started < 30
    assert store.run("stats/labels") == []  # nothing was sent, and the connection still works


def test_statements_are_measured_for_every_server_but_neo4j_itself(store):
    from citegraph.graph.store import MAX_MESSAGE, message_limit

    assert message_limit(store.server_info()["agent"]) == MAX_MESSAGE  # the embedded ArcadeDB says it is Neo4j-compatible
    assert message_limit("Neo4j/5.26.0") is None


# -- 4, 5. integers and nesting -------------------------------------------------------------
def test_an_integer_beyond_64_bits_is_a_bad_field_not_a_crash(store, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": f"P{i}"} for i in range(6)] + [{"id": "P6", "year": HUGE}])
    with pytest.raises(InputError, match=r"c.jsonl:7: field 'year' .*out of range"):
        ingest(store, formats.get("jsonl"), [path], IngestOptions(batch_size=2))
    assert counts(store) == ({}, {})


# -- 6. one ingest at a time ---------------------------------------------------------------
def test_a_second_ingest_on_the_same_graph_is_refused_while_one_runs(store, server_env, tmp_path):
    from citegraph.ingest.lock import ingest_lock

    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "P1"}\n')
    config = Config.load(None)
    with ingest_lock(config):
        done = citegraph("ingest", "jsonl", str(path), "--no-progress", env=server_env)
    assert done.returncode != 0
    assert f"another ingest into this graph is running (pid {os.getpid()})" in done.stderr
    assert "Traceback" not in done.stderr
    assert counts(store) == ({}, {})
    again = citegraph("ingest", "jsonl", str(path), "--no-progress", env=server_env)  # released
    assert again.returncode == 0, again.stderr


# -- 7. --rejects must not be an input -------------------------------------------------------
def test_rejects_pointing_at_an_input_is_refused(store, tmp_path):
    path = tmp_path / "c.jsonl"
    content = '{"id": "P1"}\n{"id": 7.5}\n{"id": "P2"}\n'
    path.write_text(content)
    (tmp_path / "link.jsonl").symlink_to(path)
    for rejects in (path, tmp_path / "link.jsonl", tmp_path / "." / "c.jsonl"):
        with pytest.raises(CitegraphError, match="is an input"):
            ingest(store, formats.get("jsonl"), [path], IngestOptions(skip_bad=True, rejects=rejects))
        assert path.read_text() == content
    assert counts(store) == ({}, {})


# -- 10. a stale server.json -------------------------------------------------------------
def test_a_stale_server_state_with_reused_pid_and_port_is_not_trusted(tmp_path):
    stranger = subprocess.Popen(["sleep", "60"])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        server = ArcadeServer(tmp_path / "arcadedb")
        server.home.mkdir(parents=True)
        port = listener.getsockname()[1]
        server.state_file.write_text(json.dumps({"pid": stranger.pid, "bolt_port": port, "http_port": port,
                                                 "detached": True}))
        assert server.status() is None
        assert server.stop() is False
        assert stranger.poll() is None, "server stop signalled a process that is not our server"
    finally:
        stranger.kill()
        stranger.wait()
        listener.close()


# -- 11. one id normalisation for ingest and lookup -------------------------------------------
def test_ids_are_normalised_the_same_way_at_ingest_and_lookup(store, tmp_path):
    from citegraph.recommend import Recommender

    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "e\u0301", "title": "decomposed"}) + "\n"
                    + json.dumps({"id": "Q", "references": ["e\u0301"]}) + "\n")
    ingest(store, formats.get("jsonl"), [path])
    assert counts(store) == ({"Paper": 2}, {"CITES": 1})
    seed = Recommender(store).seed("e\u0301")
    assert seed.id == "\u00e9" and seed.title == "decomposed"
    assert Recommender(store).seed("\u00e9").id == "\u00e9"


# -- 12. duplicate ids ------------------------------------------------------------------
DUPLICATES = [('{"id": "P1", "title": "one"}', '{"id": "P2"}', '{"id": "P1", "title": "two"}'),
              ('{"id": "P2", "title": "three"}',)]


def _duplicates(tmp_path) -> list[Path]:
    paths = []
    for i, lines in enumerate(DUPLICATES):
        paths.append(tmp_path / f"d{i}.jsonl")
        paths[-1].write_text("\n".join(lines) + "\n")
    return paths


@pytest.mark.parametrize("policy,titles", [("merge", {"P1": "two", "P2": "three"}),
                                           ("first", {"P1": "one", "P2": None}),
                                           ("last", {"P1": "two", "P2": "three"})])
def test_duplicate_ids_are_counted_and_resolved_by_policy(store, tmp_path, policy, titles):
    summary = ingest(store, formats.get("jsonl"), _duplicates(tmp_path), IngestOptions(on_duplicate=policy))
    assert summary.duplicates == 2
    assert {p: store.run("paper", id=p)[0]["title"] for p in titles} == titles


def test_duplicate_ids_can_be_an_error(store, tmp_path):
    paths = _duplicates(tmp_path)
    with pytest.raises(InputError, match=r"d0.jsonl:3: duplicate paper id 'P1' \(first at .*d0.jsonl:1\)"):
        ingest(store, formats.get("jsonl"), paths, IngestOptions(on_duplicate="error"))
    assert counts(store) == ({}, {})


# -- 13. URIs ----------------------------------------------------------------------------------
@pytest.mark.parametrize("uri,reason", [("http://localhost:7687", "scheme"), ("bolt://", "host"),
                                        ("bolt://localhost:99999", "port"), ("bolt://localhost:x", "port"),
                                        ("bolt://neo4j:s3cret-pw@localhost:7687", "credentials")])
def test_bad_uris_are_refused_without_echoing_credentials(uri, reason):
    with pytest.raises(ConfigError, match=reason) as raised:
        Config.load(None, uri=uri)
    assert "s3cret-pw" not in str(raised.value)


def test_a_bad_uri_on_the_command_line_is_one_line(tmp_path):
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path)}
    done = citegraph("--uri", "bolt://neo4j:s3cret-pw@[::1", "stats", env=env, timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "s3cret-pw" not in done.stderr + done.stdout and "--uri" in done.stderr


# -- 8. the graph server dying ---------------------------------------------------------------
class _KillWhileWriting:
    """Progress that SIGKILLs the embedded server once ``after`` lines have been written."""

    def __init__(self, pid: int, after: int):
        self.pid, self.after, self.stage, self.written = pid, after, "", 0

    def start(self, description, total):
        self.stage = description

    def advance(self, lines):
        if self.stage == "writing":
            self.written += lines
            if self.written >= self.after and psutil.pid_exists(self.pid):
                os.kill(self.pid, signal.SIGKILL)
                while psutil.Process(self.pid).status() != psutil.STATUS_ZOMBIE:  # not reaped: the store does
                    time.sleep(0.05)

    def finish(self):
        pass


@pytest.mark.slow
def test_the_embedded_server_dying_is_said_at_once_and_the_ingest_resumes(tmp_path):
    from fastapi.testclient import TestClient

    from citegraph.recommend import Recommender
    from citegraph.serve import create_app

    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"id": f"P{i}", "references": [f"P{i - 1}"]}) + "\n" for i in range(1, 3001)))
    config = Config(data_dir=tmp_path / "data", heap="512m")
    with open_store(config) as store:
        pid = ArcadeServer(tmp_path / "data" / "arcadedb").status().pid
        started = time.monotonic()
        with pytest.raises(ServerError) as raised:
            ingest(store, formats.get("jsonl"), [path], IngestOptions(batch_size=200), _KillWhileWriting(pid, 1000))
        message = str(raised.value)
        assert "killed by signal 9" in message and "run the same command again" in message, message
        assert "committed up to line 800" in message, message  # the batch of lines 801-1000 was not
        assert time.monotonic() - started < 120  # validation, 4 batches and at most the driver's 30 s retry

        service = TestClient(create_app(Recommender(store)), base_url="http://127.0.0.1")
        started = time.monotonic()
        health = service.get("/health")
        assert health.status_code == 503 and "killed by signal 9" in health.json()["detail"]
        paper = service.get("/paper/P1")
        assert paper.status_code == 503 and "killed by signal 9" in paper.json()["detail"]
        assert time.monotonic() - started < 5, "a dead graph must fail fast, not after retries"

    with open_store(config) as store:
        summary = ingest(store, formats.get("jsonl"), [path], IngestOptions(batch_size=200))
        assert summary.resumed == {str(path): 800}
        assert counts(store) == ({"Paper": 3001, "External": 1}, {"CITES": 3000})


# -- 9. a killed bulk ingest -------------------------------------------------------------------
@pytest.mark.slow
def test_a_killed_bulk_ingest_is_shown_by_stats_cleaned_up_and_repaired_by_streaming(tmp_path):
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data"), "CITEGRAPH_HEAP": "512m"}
    for key in ("CITEGRAPH_URI", "CITEGRAPH_PASSWORD", "CITEGRAPH_DATABASE", "CITEGRAPH_USER"):
        env.pop(key, None)
    corpus = tmp_path / "corpus.jsonl"
    assert citegraph("synth", "--papers", "3000", "--out", str(corpus), env=env).returncode == 0
    home = tmp_path / "data" / "arcadedb"
    bulk = subprocess.Popen([sys.executable, "-m", "citegraph.cli", "ingest", "s2orc", str(corpus), "--bulk",
                             "--no-progress"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 180
    while not (home / "bulk-loading.json").exists():
        assert bulk.poll() is None and time.monotonic() < deadline, "the bulk ingest ended before loading"
        time.sleep(0.02)
    os.killpg(bulk.pid, signal.SIGKILL)  # the CLI and its loader; the server follows its parent
    bulk.wait()
    assert list(home.glob("bulk-*/"))
    for _ in range(200):
        if ArcadeServer(home).status() is None:
            break
        time.sleep(0.1)

    stats = citegraph("stats", env=env)
    assert f"a bulk ingest (pid {bulk.pid}) was interrupted while loading" in stats.stderr, stats.stderr
    assert f"citegraph ingest s2orc {corpus}" in stats.stderr and "without --bulk" in stats.stderr

    again = citegraph("ingest", "s2orc", str(corpus), "--bulk", "--no-progress", env=env)
    assert not [p for p in home.glob("bulk-*") if p.is_dir()], "the leftover work folder is removed"
    if again.returncode:  # the killed load had written vertices: the graph is not empty
        assert "was interrupted while loading" in again.stderr and "Traceback" not in again.stderr
    repair = citegraph("ingest", "s2orc", str(corpus), "--no-progress", env=env)
    assert repair.returncode == 0, repair.stderr
    after = citegraph("stats", "--json", env=env)
    assert after.returncode == 0 and "interrupted" not in after.stderr
    labels = {r["label"]: r["count"] for r in json.loads(after.stdout)["labels"]}
    assert labels["Paper"] >= 3000
