"""Hostile-but-honest input (issue 14): every reader against a corpus of bad files, secrets
kept out of process arguments, batches over the Bolt message limit, concurrent and killed
ingests, stale server state, duplicate and unnormalised ids, bad URIs.

The corpus is written by the tests (``HOSTILE``): each case is one bad line among good
ones, for every format of ``FORMATS``; each must give an :class:`InputError` naming file
and line, and leave the graph as it was.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from citegraph.config import Config
from citegraph.errors import CitegraphError, ConfigError, InputError, ServerError
from citegraph.graph import ArcadeServer, Write, open_store, queries
from citegraph.graph import store as store_module
from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.ingest.formats import FORMATS
from citegraph.ingest.sources.taxonomy import BUNDLED

from conftest import ACL200, begins, citegraph, small_disk, write_jsonl

DEEP = "[" * 100_000 + "]" * 100_000  # nested past Python's recursion limit
HUGE = 2**70  # past a 64-bit integer


def counts(store) -> tuple[dict, dict]:
    labels = {r["label"]: r["count"] for r in store.run("stats/labels") if r["label"] != "IngestCheckpoint"}
    rels = {r["type"]: r["count"] for r in store.run("stats/relationships")}
    return labels, rels


# -- the corpus ---------------------------------------------------------------------------
def _jsonl(good: dict, bad: str) -> dict[str, str]:
    return {"in.jsonl": json.dumps(good) + "\n" + bad + "\n" + json.dumps(good | {"title": "after"}) + "\n"}


GOOD = {
    "jsonl": {"id": "P1", "title": "t", "year": 2001},
    "s2orc": {"paper_id": "P1", "title": "t", "year": 2001},
    "unarxive": {"paper_id": "2101.00001", "metadata": {"title": "t"}},
}
ID_FIELD = {"jsonl": "id", "s2orc": "paper_id", "unarxive": "paper_id"}
JSON_LINES = [  # (case, bad line for an id field and format, line, field, reason)
    ("deep", lambda f, i: '{"%s": "P2", "title": %s}' % (i, DEEP), 2, None, "nested too deeply"),
    ("unterminated", lambda f, i: '{"%s": "P2", "title": "cut}' % i, 2, None, "Invalid control character at column"),
    ("array", lambda f, i: "[1, 2]", 2, None, "expected a JSON object"),
    ("id-type", lambda f, i: '{"%s": {"x": 1}}' % i, 2, "ID", "expected a string"),
    ("nul-bytes", lambda f, i: '{"%s": "P2", "title": "\x00\x00"' % i, 2, None, "malformed JSON"),
    ("huge-year", lambda f, i: '{"%s": "P2", "year": %d}' % (i, HUGE), 2, "year", "out of range"),
    ("digits", lambda f, i: '{"%s": "P2", "year": %s}' % (i, "9" * 5000), 2, None, "malformed JSON"),
    ("lone-surrogate", lambda f, i: '{"%s": "P2", "title": "Caf\\udce9"}' % i, 2, "title", "surrogate (\\udce9)"),
]
HOSTILE = [
    (
        f"{fmt}-{case}",
        fmt,
        _jsonl(GOOD[fmt], bad(fmt, ID_FIELD[fmt])),
        "in.jsonl",
        line,
        ID_FIELD[fmt] if field == "ID" else field,
        reason,
    )
    for fmt in ("jsonl", "s2orc", "unarxive")
    for case, bad, line, field, reason in JSON_LINES
    if fmt != "unarxive" or case != "huge-year"
]
HOSTILE += [
    (f"{fmt}-{case}", fmt, _jsonl(good, bad(fmt, "id")), "in.jsonl", line, field, reason)
    for fmt, good in (
        ("openalex", {"id": "https://openalex.org/W1", "title": "t"}),
        ("s2ag", {"corpusid": 1, "title": "t"}),
    )
    for case, bad, line, field, reason in JSON_LINES
    if field is None
]
HOSTILE += [
    (
        "bibtex-year",
        "bibtex",
        {
            "in.bib": "@article{k1,\n  title = {t},\n  year = {2001}\n}\n\n@article{k2,\n"
            "  title = {u},\n  year = {%d}\n}\n" % HUGE
        },
        "in.bib",
        8,
        "year",
        "",
    ),
    (
        "bibtex-huge-field",
        "bibtex",
        {
            "in.bib": "@article{k1,\n  title = {t}\n}\n\n@article{k2,\n  title = {u},\n"
            "  abstract = {%s}\n}\n" % (r"M{\"u}ller " * 95_326)
        },
        "in.bib",
        7,
        "abstract",
        "1,048,586 characters; citegraph reads at most 100,000 of a field",
    ),  # issue 23 §4.5
    (
        "s2ag-huge-corpusid",
        "s2ag",
        _jsonl({"corpusid": 1}, '{"corpusid": %d}' % HUGE),
        "in.jsonl",
        2,
        "corpusid",
        "out of range",
    ),
    (
        "unarxive-metadata",
        "unarxive",
        _jsonl(GOOD["unarxive"], '{"paper_id": "2101.00002", "metadata": 7}'),
        "in.jsonl",
        2,
        "metadata",
        "expected an object",
    ),
    (
        "unarxive-huge-year",
        "unarxive",
        _jsonl(GOOD["unarxive"], '{"paper_id": "2101.00002", "metadata": {"update_date": "%d-01-01"}}' % HUGE),
        "in.jsonl",
        2,
        "metadata.update_date",
        "",
    ),
    (
        "acl200-huge-n_contexts",
        "acl200",
        {"edges.tsv": f"citing\tcited\tn_contexts\nA\tB\t1\nA\tC\t{HUGE}\n"},
        "edges.tsv",
        3,
        "n_contexts",
        "out of range",
    ),
    (
        "acl200-deep",
        "acl200",
        {"papers.jsonl": '{"paper_id": "A"}\n{"paper_id": "B", "x": %s}\n' % DEEP},
        "papers.jsonl",
        2,
        None,
        "nested too deeply",
    ),
    (
        "acl200-huge-year",
        "acl200",
        {"papers.jsonl": '{"paper_id": "A"}\n{"paper_id": "B", "year": "%d"}\n' % HUGE},
        "papers.jsonl",
        2,
        "year",
        "out of range",
    ),
    (
        "taxonomy-columns",
        "taxonomy",
        {
            "arxiv_categories.tsv": "category\tname\tarchive\tgroup\tgroup_name\tis_active\n"
            "cs.CL\tComputation and Language\tcs\n"
        },
        "arxiv_categories.tsv",
        2,
        None,
        "expected 6 columns",
    ),
    (
        "taxonomy-xml",
        "taxonomy",
        {"acm_ccs2012.xml": "<rdf:RDF>\n<skos:Concept>\n"},
        "acm_ccs2012.xml",
        1,
        None,
        "malformed XML: unbound prefix",
    ),
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


_TOPIC = {
    "id": "https://openalex.org/T10181",
    "display_name": "NLP",
    "score": 0.99,
    "subfield": {"id": "https://openalex.org/subfields/1702", "display_name": "Artificial Intelligence"},
    "field": {"id": "https://openalex.org/fields/17", "display_name": "Computer Science"},
    "domain": {"id": "https://openalex.org/domains/3", "display_name": "Physical Sciences"},
}
_WORK = {"id": "https://openalex.org/W1", "title": "t", "topics": [_TOPIC], "primary_topic": _TOPIC}
HOSTILE += [  # OpenAlex topics: the good works carry a topic tree, the bad one a broken topic
    (
        f"openalex-topic-{case}",
        "openalex",
        _jsonl(_WORK, json.dumps(_WORK | {"id": "https://openalex.org/W2"} | bad)),
        "in.jsonl",
        2,
        field,
        reason,
    )
    for case, bad, field, reason in [
        ("score", {"topics": [_TOPIC | {"score": "high"}]}, "topics[0].score", "expected a number"),
        ("not-an-object", {"topics": [_TOPIC, "T10028"]}, "topics[1]", "expected an object"),
        (
            "level-id",
            {"primary_topic": _TOPIC | {"field": {"id": "https://openalex.org/domains/3"}}},
            "primary_topic.field.id",
            "expected a field id",
        ),
        ("topic-id", {"primary_topic": _TOPIC | {"id": None}}, "primary_topic.id", "expected a topic id"),
        ("huge-score", {"topics": [_TOPIC | {"score": HUGE * 1e300}]}, "topics[0].score", "expected a number"),
    ]
]
_CITANCE = (
    '{"citance_No": %s, "citing_paper_id": "W00-1102", "raw_text": "x (Gonzalo et al., 1998) y.", "clean_text": %s}'
)
HOSTILE += [  # a ScisummNet folder: the real W98-0705 with one file replaced
    (
        "scisummnet-deep",
        "scisummnet",
        {"W98-0705/citing_sentences.json": "[\n" + _CITANCE % (1, DEEP) + "\n]\n"},
        "citing_sentences.json",
        2,
        None,
        "nested too deeply",
    ),
    (
        "scisummnet-huge-citance",
        "scisummnet",
        {"W98-0705/citing_sentences.json": "[\n" + _CITANCE % (HUGE, '"x"') + "\n]\n"},
        "citing_sentences.json",
        2,
        "citance_No",
        "out of range",
    ),
    (
        "scisummnet-xml",
        "scisummnet",
        {"W98-0705/Reference_XML/W98-0705.xml": '<PAPER>\n<S sid="0">t</S>\n'},
        "W98-0705.xml",
        3,
        None,
        "malformed XML",
    ),
]
NOT_YET: set[str] = set()


def test_the_corpus_covers_every_reader():
    assert {case[1] for case in HOSTILE} == set(FORMATS) - NOT_YET


@pytest.mark.parametrize("name,fmt,files,bad_file,line,field,reason", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_every_reader_locates_hostile_input_and_writes_nothing(
    store, tmp_path, name, fmt, files, bad_file, line, field, reason
):
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


def test_a_data_directory_made_by_any_first_command_is_private(store, server_env, tmp_path):
    """Not only by the embedded server: the ingest lock (taken before the graph is opened)
    and the indexes of a user's server create it too (issue 23 §4.16)."""
    from citegraph.ingest.lock import ingest_lock

    write_jsonl(tmp_path / "c.jsonl", [{"id": "P1", "title": "a paper"}])
    assert citegraph("ingest", "jsonl", str(tmp_path / "c.jsonl"), "--no-progress", env=server_env).returncode == 0
    old = os.umask(0o022)
    try:
        for config in (
            Config(data_dir=tmp_path / "embedded"),
            Config(uri="bolt://127.0.0.1:1", data_dir=tmp_path / "uri"),
        ):
            with ingest_lock(config):
                assert stat.S_IMODE(config.data_dir.stat().st_mode) == 0o700, config
        indexed = citegraph(
            "index", "bm25", "--backend", "bm25s", env={**server_env, "CITEGRAPH_DATA_DIR": str(tmp_path / "index")}
        )
        assert indexed.returncode == 0, indexed.stderr
        assert stat.S_IMODE((tmp_path / "index").stat().st_mode) == 0o700
    finally:
        os.umask(old)


# -- 2. batches over the Bolt message limit --------------------------------------------------
def test_a_batch_over_the_bolt_message_limit_is_split_not_hung(store, server_env, tmp_path):
    """2,000 lines with 10 KB abstracts: 20 MB in one default batch, over ArcadeDB's 16 MiB."""
    path = tmp_path / "big.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"P{i}", "abstract": "word " * 2000, "references": [f"P{i - 1}"]}) + "\n"
            for i in range(1, 2001)
        )
    )
    done = citegraph("ingest", "jsonl", str(path), "--no-progress", env=server_env, timeout=240)
    assert done.returncode == 0, done.stderr
    assert counts(store) == ({"Paper": 2001, "External": 1}, {"CITES": 2000})


def test_one_record_over_the_limit_is_refused_before_it_is_sent(store):
    started = time.monotonic()
    with pytest.raises(CitegraphError, match="over citegraph's own limit of 8 MiB a statement"):
        store.write(
            Write(
                "ingest/papers",
                {"ingested": "2024-01-01", "rows": [{"id": "P1", "props": {"abstract": "x" * (20 << 20)}}]},
            )
        )
    assert time.monotonic() - started < 30
    assert store.run("stats/labels") == []  # nothing was sent, and the connection still works


def test_statements_are_measured_for_every_server_but_neo4j_itself(store):
    from citegraph.graph.store import MAX_MESSAGE, message_limit

    assert (
        message_limit(store.server_info()["agent"]) == MAX_MESSAGE
    )  # the embedded ArcadeDB says it is Neo4j-compatible
    assert message_limit("Neo4j/5.26.0") is None


def test_a_paper_with_thousands_of_references_is_written_in_seconds(store, tmp_path):
    """5,000 references of one paper (with contexts on some): 45 s merged from the citing end,
    each edge checked against all the paper's edges so far; a few seconds from the cited ends."""
    references = [{"id": f"R{i}", "contexts": [f"as [CIT] shows {i}"] if i % 10 == 0 else []} for i in range(5000)]
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "BIG", "title": "a survey", "references": references}])
    started = time.monotonic()
    summary = ingest(store, formats.get("jsonl"), [path])
    assert time.monotonic() - started < 20
    assert summary.write.citations == 5000 and summary.write.contexts == 500
    ingest(store, formats.get("jsonl"), [path], IngestOptions(restart=True))  # merged, not doubled
    assert counts(store) == ({"Paper": 5001, "External": 5000}, {"CITES": 5000})
    assert store.run("paper", id="R10")[0]["citation_count"] == 1


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


def test_the_ingest_lock_is_filelocks_names_its_holder_and_dies_with_it(tmp_path):
    """The ingest lock is filelock's: a FileLock on its file is refused while an ingest holds
    it, and an ingest is refused while a FileLock holds it; a second ingest names the pid of
    the first (refused attempts leave it in place); a holder killed with SIGKILL leaves no lock."""
    from filelock import FileLock, Timeout

    from citegraph.ingest.lock import ingest_lock, lock_file

    config = Config(data_dir=tmp_path / "data")
    code = (
        "import sys, time\nfrom citegraph.config import Config\nfrom citegraph.ingest.lock import ingest_lock\n"
        "with ingest_lock(Config(data_dir=sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(120)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(config.data_dir)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        for _ in range(2):
            with pytest.raises(
                CitegraphError, match=rf"another ingest into this graph is running \(pid {holder.pid}\)"
            ):
                with ingest_lock(config):
                    pass
            with pytest.raises(Timeout):
                FileLock(lock_file(config)).acquire(timeout=0)
    finally:
        holder.kill()
        holder.wait()
    with ingest_lock(config):  # at once: the kernel dropped the killed holder's lock
        with pytest.raises(Timeout):
            FileLock(lock_file(config)).acquire(timeout=0)
    with FileLock(lock_file(config)):
        with pytest.raises(CitegraphError, match=r"another ingest into this graph is running \(pid unknown\)"):
            with ingest_lock(config):
                pass


@pytest.mark.slow
def test_the_ingest_lock_is_the_databases_whatever_the_way_to_it(tmp_path):
    """The embedded graph of a data directory and a URI to its server are one database: one
    lock, from any data directory (issue 23 §4.10)."""
    from citegraph.ingest.lock import ingest_lock

    server = ArcadeServer(tmp_path / "data" / "arcadedb", heap="512m")
    port = server.start().bolt_port
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "P1"}])
    env = {key: value for key, value in os.environ.items() if not key.startswith("CITEGRAPH_")}
    by_uri = {
        **env,
        "CITEGRAPH_USER": "root",
        "CITEGRAPH_PASSWORD": server.password(),
        "CITEGRAPH_DATA_DIR": str(tmp_path / "elsewhere"),
    }
    refused = f"another ingest into this graph is running (pid {os.getpid()})"
    try:
        with ingest_lock(Config(data_dir=tmp_path / "data")):
            for uri in (f"bolt://localhost:{port}", f"bolt://127.0.0.1:{port}"):
                done = citegraph("--uri", uri, "ingest", "jsonl", str(path), "--no-progress", env=by_uri)
                assert done.returncode != 0 and refused in done.stderr, (uri, done.stderr)
        with ingest_lock(Config(uri=f"bolt://localhost:{port}", data_dir=tmp_path / "third")):
            done = citegraph(
                "ingest", "jsonl", str(path), "--no-progress", env={**env, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
            )
            assert done.returncode != 0 and refused in done.stderr, done.stderr
        with open_store(Config(data_dir=tmp_path / "data")) as store:
            assert counts(store) == ({}, {})
    finally:
        server.stop()


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


@pytest.mark.parametrize("rejects,reason", [("missing/r.jsonl", "no folder"), ("/dev/full", "No space left on device")])
def test_a_rejects_file_that_cannot_be_written_is_one_line(store, server_env, tmp_path, rejects, reason):
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "P1"}, '{"id": 7.5}', {"id": "P2"}])
    rejects = rejects if rejects.startswith("/") else str(tmp_path / rejects)
    done = citegraph("ingest", "jsonl", str(path), "--skip-bad", "--rejects", rejects, "--no-progress", env=server_env)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"Error: the rejects file {rejects} cannot be written: ")
    assert reason in done.stderr
    assert counts(store) == ({}, {})


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_the_ingest_resumes_once_space_is_freed(tmp_path):
    """The embedded graph on a 120 MiB tmpfs (root only: mount), 20,000 papers; then the
    tmpfs grown and the same command run again."""
    with small_disk(tmp_path, "120m") as (disk, env):
        corpus = tmp_path / "corpus.jsonl"
        assert citegraph("synth", "--papers", "20000", "--out", str(corpus), env=env).returncode == 0
        full = citegraph("ingest", "s2orc", str(corpus), "--no-progress", env=env, timeout=600)
        assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr[-2000:]
        last = full.stderr.strip().splitlines()[-1]
        assert (
            last.startswith(f"Error: the disk holding {disk / 'data'} is full") and "run the same command again" in last
        ), last
        subprocess.run(["mount", "-o", "remount,size=600m", str(disk)], check=True)
        again = citegraph("ingest", "s2orc", str(corpus), "--no-progress", env=env, timeout=600)
        assert again.returncode == 0, again.stderr[-2000:]
        stats = json.loads(citegraph("stats", "--json", env=env).stdout)
        assert {r["label"]: r["count"] for r in stats["labels"]}["Paper"] >= 20000


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
        server.state_file.write_text(
            json.dumps({"pid": stranger.pid, "bolt_port": port, "http_port": port, "detached": True})
        )
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
    path.write_text(
        json.dumps({"id": "e\u0301", "title": "decomposed"})
        + "\n"
        + json.dumps({"id": "Q", "references": ["e\u0301"]})
        + "\n"
    )
    ingest(store, formats.get("jsonl"), [path])
    assert counts(store) == ({"Paper": 2}, {"CITES": 1})
    seed = Recommender(store).seed("e\u0301")
    assert seed.id == "\u00e9" and seed.title == "decomposed"
    assert Recommender(store).seed("\u00e9").id == "\u00e9"


@pytest.fixture
def decomposed(store, tmp_path):
    """A graph whose paper 'é' (ingested as e + combining accent, stored NFC) cites and is cited."""
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"id": "e\u0301", "title": "decomposed", "references": ["R"]},
            {"id": "R", "title": "cited", "year": 2020},
            {"id": "Q", "title": "citing", "references": ["e\u0301", "R"]},
        ],
    )
    ingest(store, formats.get("jsonl"), [path])
    return store


def test_every_id_boundary_looks_up_the_stored_form(decomposed, server_env, tmp_path):
    """`citegraph paper`, `query -p id=`, `library match`, POST /queries/*, /recommend's papers,
    /works and the explorer, given the id as e + combining accent (issue 23 §4.7)."""
    from fastapi.testclient import TestClient

    from citegraph.recommend import Recommender
    from citegraph.service.http import create_app

    nfd = "e\u0301"
    shown = citegraph("paper", nfd, "--format", "jsonl", env=server_env)
    assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == "\u00e9", shown.stderr
    queried = citegraph("query", "paper", "-p", f"id={nfd}", "--json", env=server_env)
    assert queried.returncode == 0 and json.loads(queried.stdout)["title"] == "decomposed", queried.stderr
    (tmp_path / "ids.txt").write_text(nfd + "\n", encoding="utf-8")
    matched = citegraph("library", "match", str(tmp_path / "ids.txt"), env=server_env)
    assert matched.returncode == 0 and "decomposed" in matched.stdout + matched.stderr, matched.stderr

    service = TestClient(create_app(Recommender(decomposed)), base_url="http://127.0.0.1")
    ego = service.post("/queries/ego_network", json={"id": nfd, "limit": 5})
    assert ego.status_code == 200 and ego.json()["rows"], ego.text
    for route, body in (("/recommend", {"papers": [nfd]}), ("/works", {"papers": [nfd]})):
        answer = service.post(route, json=body)
        assert answer.status_code == 200 and answer.json()["matches"][0]["paper"] == "\u00e9", (route, answer.text)
    library = service.post("/explore/library", json={"text": nfd, "name": "ids.txt"})
    assert library.json()["papers"] == ["\u00e9"], library.text
    drawn = service.post("/explore/map", json={"seeds": [nfd]})
    assert "seed" in {p["id"]: p for p in drawn.json()}["\u00e9"]["roles"], drawn.text
    exported = service.post("/explore/export", json={"papers": [nfd], "notes": {nfd: "why"}, "format": "ris"})
    assert "ID  - \u00e9" in exported.text and "N1  - why" in exported.text, exported.text


# -- 12. duplicate ids ------------------------------------------------------------------
DUPLICATES = [
    ('{"id": "P1", "title": "one"}', '{"id": "P2"}', '{"id": "P1", "title": "two"}'),
    ('{"id": "P2", "title": "three"}',),
]


def _duplicates(tmp_path) -> list[Path]:
    paths = []
    for i, lines in enumerate(DUPLICATES):
        paths.append(tmp_path / f"d{i}.jsonl")
        paths[-1].write_text("\n".join(lines) + "\n")
    return paths


@pytest.mark.parametrize(
    "policy,titles",
    [
        ("merge", {"P1": "two", "P2": "three"}),
        ("first", {"P1": "one", "P2": None}),
        ("last", {"P1": "two", "P2": "three"}),
    ],
)
def test_duplicate_ids_are_counted_and_resolved_by_policy(store, tmp_path, policy, titles):
    summary = ingest(store, formats.get("jsonl"), _duplicates(tmp_path), IngestOptions(on_duplicate=policy))
    assert summary.duplicates == 2
    assert {p: store.run("paper", id=p)[0]["title"] for p in titles} == titles


def test_duplicate_ids_can_be_an_error(store, tmp_path):
    paths = _duplicates(tmp_path)
    with pytest.raises(InputError, match=r"d0.jsonl:3: duplicate paper id 'P1' \(first at .*d0.jsonl:1\)"):
        ingest(store, formats.get("jsonl"), paths, IngestOptions(on_duplicate="error"))
    assert counts(store) == ({}, {})


@pytest.mark.parametrize("policy", ["first", "error"])
def test_first_and_error_see_the_papers_an_earlier_ingest_wrote(store, tmp_path, policy):
    earlier, later = tmp_path / "earlier.jsonl", tmp_path / "later.jsonl"
    write_jsonl(earlier, [{"id": "P1", "title": "graph's"}, {"id": "P2", "references": ["P3"]}])
    write_jsonl(
        later,
        [
            {"id": "P4"},
            {"id": "P3", "title": "a stub before"},
            {"id": "P1", "title": "new"},
            {"id": "P1", "title": "newer"},
        ],
    )
    ingest(store, formats.get("jsonl"), [earlier])
    if policy == "error":
        with pytest.raises(
            InputError,
            match=r"later.jsonl:3: duplicate paper id 'P1' \(already in the graph from "
            r"an earlier ingest\)",
        ):
            ingest(store, formats.get("jsonl"), [later], IngestOptions(on_duplicate=policy))
        assert counts(store) == ({"Paper": 3, "External": 1}, {"CITES": 1})
        return
    summary = ingest(store, formats.get("jsonl"), [later], IngestOptions(on_duplicate=policy, batch_size=1))
    assert summary.duplicates == 2  # both records of P1; P3 was only a cited stub
    assert {p: store.run("paper", id=p)[0]["title"] for p in ("P1", "P3", "P4")} == {
        "P1": "graph's",
        "P3": "a stub before",
        "P4": None,
    }


class _StopWhileWriting:
    """Progress that stops the ingest once ``after`` lines are written (as a kill would)."""

    def __init__(self, after: int):
        self.after, self.stage, self.written = after, "", 0

    def start(self, description, total):
        self.stage = description

    def advance(self, lines):
        self.written += lines if self.stage == "writing" else 0
        if self.written >= self.after:
            raise KeyboardInterrupt

    def finish(self):
        pass


def test_a_resumed_ingest_does_not_take_its_own_committed_papers_for_duplicates(store, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": f"P{i}"} for i in range(10)])
    with pytest.raises(KeyboardInterrupt):
        ingest(
            store, formats.get("jsonl"), [path], IngestOptions(batch_size=2, on_duplicate="error"), _StopWhileWriting(5)
        )
    summary = ingest(store, formats.get("jsonl"), [path], IngestOptions(batch_size=2, on_duplicate="error"))
    assert summary.resumed == {str(path): 4} and summary.duplicates == 0
    assert counts(store) == ({"Paper": 10}, {})


# -- 13. URIs ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "uri,reason",
    [
        ("http://localhost:7687", "scheme"),
        ("bolt://", "host"),
        ("bolt://localhost:99999", "port"),
        ("bolt://localhost:x", "port"),
        ("bolt://neo4j:s3cret-pw@localhost:7687", "credentials"),
        ("bolt://localhost:7687?x=s3cret-pw", "query"),
        ("neo4j://localhost:7687#s3cret-pw", "fragment"),
    ],
)
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
    from citegraph.service.http import create_app

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


class _KillDuringWrite(_KillWhileWriting):
    """Progress that freezes the embedded server (SIGSTOP) once ``after`` lines have been
    written, so that the next batch is in flight when it is SIGKILLed a second later."""

    killed_at: float | None = None

    def advance(self, lines):
        if self.stage == "writing" and self.killed_at is None:
            self.written += lines
            if self.written >= self.after:
                os.kill(self.pid, signal.SIGSTOP)
                self.killed_at = time.monotonic() + 1.0
                threading.Timer(1.0, os.kill, (self.pid, signal.SIGKILL)).start()


@pytest.mark.slow
def test_the_embedded_server_dying_under_a_write_stops_the_ingest_at_once(tmp_path):
    """Not after the driver's five retries over 31 s (issue 23 §4.18)."""
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"id": f"P{i}"}) + "\n" for i in range(1, 3001)))
    with open_store(Config(data_dir=tmp_path / "data", heap="512m")) as store:
        progress = _KillDuringWrite(ArcadeServer(tmp_path / "data" / "arcadedb").status().pid, 1000)
        with pytest.raises(ServerError) as raised:
            ingest(store, formats.get("jsonl"), [path], IngestOptions(batch_size=200), progress)
        stopped_after = time.monotonic() - progress.killed_at
    message = str(raised.value)
    assert "killed by signal 9" in message and "committed up to line" in message, message
    assert stopped_after < 5, f"the ingest stopped {stopped_after:.1f} s after the server died"


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=10) as response:
            return response.status == 200
    except OSError:  # refused, or an HTTP error such as 503
        return False


def _recovers(url: str, within: float = 120) -> None:
    deadline = time.monotonic() + within
    while not _healthy(url):
        assert time.monotonic() < deadline, f"{url}/health did not recover within {within:.0f} s"
        time.sleep(0.5)
    with urllib.request.urlopen(f"{url}/paper/P1", timeout=30) as response:
        assert json.loads(response.read())["title"] == "one"


@pytest.mark.slow
def test_services_keep_their_embedded_graph_running_and_share_it(tmp_path):
    """Two services on one data directory: the graph server killed under them, or stopped
    with the service that had started it, comes back, and both answer again; one restarted
    later uses the server that runs (issue 23 §4.4)."""
    from citegraph.graph.processes import free_port
    from citegraph.service.serving import wait_serving

    env = {key: value for key, value in os.environ.items() if not key.startswith("CITEGRAPH_")}
    env |= {"CITEGRAPH_DATA_DIR": str(tmp_path / "data"), "CITEGRAPH_HEAP": "512m"}
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "P1", "title": "one"}, {"id": "P2", "title": "two"}])
    assert citegraph("ingest", "jsonl", str(path), "--no-progress", env=env).returncode == 0
    assert citegraph("index", "bm25", "--backend", "bm25s", env=env).returncode == 0
    home = ArcadeServer(tmp_path / "data" / "arcadedb")

    def serve(port: int) -> subprocess.Popen:
        with open(tmp_path / f"serve-{port}.log", "ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "citegraph.cli", "serve", "--port", str(port)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_serving(f"http://127.0.0.1:{port}", process, log=tmp_path / f"serve-{port}.log")
        return process

    ports = free_port(), free_port()
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    services = {}
    try:
        for port in ports:
            services[port] = serve(port)
        first = home.status().pid
        os.kill(first, signal.SIGKILL)
        for url in urls:
            _recovers(url)
        second = home.status()
        assert second.pid != first
        [owner] = [port for port, process in services.items() if psutil.Process(second.pid).ppid() == process.pid]
        [other] = [port for port in ports if port != owner]
        stopped = services.pop(owner)
        stopped.terminate()  # stops the server it had started
        stopped.wait(timeout=60)
        _recovers(f"http://127.0.0.1:{other}")
        assert home.status().pid != second.pid
        services[owner] = serve(owner)
        _recovers(f"http://127.0.0.1:{owner}")
    finally:
        for process in services.values():
            process.terminate()
            process.wait(timeout=60)
    assert home.status() is None


# -- 9. a killed bulk ingest -------------------------------------------------------------------
def _ended(process: psutil.Process) -> bool:
    try:
        return process.status() == psutil.STATUS_ZOMBIE  # dead, not yet reaped by whoever adopted it
    except psutil.NoSuchProcess:
        return True


@pytest.mark.slow
def test_a_killed_bulk_ingest_is_shown_by_stats_cleaned_up_and_repaired_by_streaming(tmp_path):
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data"), "CITEGRAPH_HEAP": "512m"}
    for key in ("CITEGRAPH_URI", "CITEGRAPH_PASSWORD", "CITEGRAPH_DATABASE", "CITEGRAPH_USER"):
        env.pop(key, None)
    corpus = tmp_path / "corpus.jsonl"
    assert citegraph("synth", "--papers", "3000", "--out", str(corpus), env=env).returncode == 0
    home = tmp_path / "data" / "arcadedb"
    bulk = subprocess.Popen(
        [sys.executable, "-m", "citegraph.cli", "ingest", "s2orc", str(corpus), "--bulk", "--no-progress"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while not (
        loader := [
            p for p in psutil.Process(bulk.pid).children() if "citegraph.ingest.bulk.arcadedb_loader" in p.cmdline()
        ]
    ):
        assert bulk.poll() is None and time.monotonic() < deadline, "the bulk ingest ended before loading"
        time.sleep(0.02)
    os.kill(bulk.pid, signal.SIGKILL)  # the CLI alone: its loader and its server must follow it
    bulk.wait()
    deadline = time.monotonic() + 2
    while not all(map(_ended, loader)):
        assert time.monotonic() < deadline, "the loader outlived its ingest (issue 23 §4.3)"
        time.sleep(0.05)
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


# -- 14. Lucene's 1,024-clause limit (issue 23 §4.1) -------------------------------------------
def _words(n: int) -> list[str]:
    """``n`` distinct words the analyser keeps as they are (no stemming, no stopwords)."""
    return [f"x{i:04d}q" for i in range(n)]


@pytest.mark.parametrize("backend", [pytest.param("lucene", marks=pytest.mark.lucene), "bm25s"])
@pytest.mark.parametrize("multifield", [False, True])
@pytest.mark.parametrize("pooled", [False, True])
def test_a_query_of_1100_distinct_words_keeps_its_heaviest(tmp_path, backend, multifield, pooled):
    """2,000 papers of one rare word each; a query of 1,100 of those words, the first 100 of
    them three times: the query is cut to the terms Lucene can take (1,024, or 512 per field
    in a multifield index), heaviest first, so its top 100 are the 100 tripled words' papers,
    as without a cut (bm25s)."""
    from citegraph.retrieval.base import Document
    from citegraph.retrieval.bm25 import build_bm25

    words = _words(2000)
    docs = [Document(f"P{i:04d}", f"paper {word}", "an abstract") for i, word in enumerate(words)]
    index = build_bm25(docs, tmp_path / "bm25", backend=backend, multifield=multifield, threads=1)
    query = " ".join(words[:100] * 3 + words[100:1100])
    pools = [{d.id for d in docs[:1500]}] if pooled else None
    [ranking] = index.search([query], 100, pools)
    assert [hit.id for hit in ranking] == [f"P{i:04d}" for i in range(100)]
    [short] = index.search(["paper " + words[7]], 1, pools)  # queries within the limit are unchanged
    assert short[0].id == "P0007"


@pytest.mark.lucene
def test_a_library_of_2000_papers_is_recommended_for_on_lucene(store, tmp_path):
    from citegraph.recommend import Recommender
    from citegraph.retrieval.bm25 import build_bm25
    from citegraph.retrieval.corpus import documents

    """2,000 papers, 2,000 distinct words: the query keeps its heaviest terms, among them the
    word ten of the papers share, which finds the one other paper using it."""
    words = _words(2100)
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"id": f"P{i:04d}", "title": f"on {word}", "abstract": "we study " + ("graphs" if i < 10 else word)}
            for i, word in enumerate(words)
        ]
        + [{"id": "Q", "title": "graphs"}],
    )
    ingest(store, formats.get("jsonl"), [path])
    bm25 = build_bm25(list(documents(store)), tmp_path / "bm25", backend="lucene", threads=1)
    library = [f"P{i:04d}" for i in range(2000)]
    found = Recommender(store, [bm25]).for_library(library, k=5)
    assert [r.id for r in found] == ["Q"]


# -- 15. exports of hostile titles and notes (issue 23 §4.2) ----------------------------------------
HOSTILE_TEXTS = [
    "Harmless}}, url = {http://evil.example/}, note = {",
    "Two\nlines\nER  - \nTY  - JOUR\nTI  - evil",
    "}\n}\n@article{evil,\n  url = {x}",
    '50% {of} $x$ & _y_ #1 \\relax ~ x^2 é 中 "q"',
    "tail\\",
    "line\u2028sep\rand\x0bvt",
]


def _hostile_papers(text: str, authors: tuple[str, ...] = ("Ada Lovelace",)):
    from citegraph.library.export import Exported

    return [Exported(f"ID{text}", text, 2020, text, "10.1000/a_b", "", authors, text), Exported("P2", "plain", 2021)]


@pytest.mark.parametrize("text", HOSTILE_TEXTS, ids=range(len(HOSTILE_TEXTS)))
def test_a_bibtex_export_of_hostile_text_reads_back_as_written(text):
    import bibtexparser

    from citegraph.formats.bibtex_entries import CONTROL_CHARACTERS, parse_text
    from citegraph.formats.latex_text import decode
    from citegraph.library.export import to_bibtex

    written = to_bibtex(_hostile_papers(text))
    entries = bibtexparser.parse_string(written).entries
    assert [sorted(e.fields_dict) for e in entries] == [
        ["author", "citegraph-id", "doi", "howpublished", "note", "title", "url", "year"],
        ["citegraph-id", "title", "year"],
    ]
    line = " ".join(text.split())  # values are written on one line: whitespace is one space to BibTeX
    assert decode(entries[0].fields_dict["note"].value)[0] == line  # a field citegraph does not read, decoded alike
    first, second = parse_text(written, Path("export.bib"))  # as `library` and `ingest bibtex` read it
    assert first.problem is None and second.problem is None
    read = CONTROL_CHARACTERS.sub("", line)  # the reader drops control characters, with a warning
    assert {k: first.fields[k] for k in ("title", "howpublished", "citegraph-id", "doi")} == {
        "title": read,
        "howpublished": read,
        "citegraph-id": f"ID{read}",
        "doi": "10.1000/a_b",
    }
    assert second.fields["citegraph-id"] == "P2"


@pytest.mark.parametrize("text", HOSTILE_TEXTS, ids=range(len(HOSTILE_TEXTS)))
def test_a_ris_export_of_hostile_text_reads_back_as_one_line_each(text):
    import rispy

    from citegraph.library.export import to_ris

    first, second = rispy.loads(to_ris(_hostile_papers(text, (text, "Ada Lovelace"))))
    line = " ".join(text.split())
    assert (first["title"], first["notes"], first["secondary_title"], first["id"], first["authors"][1:]) == (
        line,
        [line],
        line,
        " ".join(f"ID{text}".split()),
        ["Lovelace, Ada"],
    )
    # RIS's 'Last, First' where BibTeX's rules split the name, else the name whole
    assert first["authors"][0] == line or " ".join(reversed(first["authors"][0].split(", ", 1))) == line
    assert (second["id"], second["title"]) == ("P2", "plain")


# -- 16. numbers and dates past what the graph takes (issue 23 §4.9) ----------------------------------
def test_a_row_count_is_checked_against_the_largest_the_graph_runs(store, server_env):
    """ArcadeDB runs LIMIT 2^31-2 and fails on 2^31-1 with a bare "Database error"."""
    largest = citegraph("query", "most_cited", "-p", f"limit={2**31 - 2}", "--json", env=server_env)
    assert largest.returncode == 0, largest.stderr
    over = citegraph("query", "most_cited", "-p", f"limit={2**31 - 1}", env=server_env)
    assert over.returncode == 2 and "Traceback" not in over.stderr, over.stderr
    assert "$limit counts rows: it must be between 0 and 2,147,483,646, got 2147483647" in over.stderr


NOT_DATES = [
    ("0000-00-00", "there is no year 0"),
    ("2013-13-01", "there is no month 13"),
    ("2013-02-30", "February 2013 has no day 30"),
    ("2013-00", "there is no month 00"),
]


@pytest.mark.parametrize("date,reason", NOT_DATES, ids=[d for d, _ in NOT_DATES])
def test_a_date_that_is_not_in_the_calendar_is_refused(store, tmp_path, date, reason):
    from fastapi.testclient import TestClient

    from citegraph.recommend import Recommender
    from citegraph.service.http import create_app

    done = citegraph("recommend", "P1", "--as-of", date, env={**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2 and reason in done.stderr and "Traceback" not in done.stderr, done.stderr
    service = TestClient(create_app(Recommender(store)), base_url="http://127.0.0.1")
    for route, body in (
        ("/recommend", {"paper": "P1"}),
        ("/works", {"papers": ["P1"]}),
        ("/explore/map", {"seeds": ["P1"]}),
    ):
        answer = service.post(route, json={**body, "as_of": date})
        assert answer.status_code == 422 and reason in answer.text, (route, answer.text)


@pytest.mark.parametrize("command", [("ingest", "jsonl"), ("index", "dense")])
@pytest.mark.parametrize("size", ["0", "-1"])
def test_a_batch_size_below_one_is_refused(tmp_path, command, size):
    (tmp_path / "c.jsonl").write_text('{"id": "P1"}\n')
    args = [*command, str(tmp_path / "c.jsonl")] if command[0] == "ingest" else list(command)
    done = citegraph(*args, "--batch-size", size, env={**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2 and "--batch-size" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "data").exists()


def test_the_date_pattern_of_the_schemas_admits_exactly_the_calendar_s_days():
    import re
    from datetime import date

    from citegraph.vocabulary import DATE, calendar_date

    def real(text: str) -> bool:
        try:
            date.fromisoformat((text + "-01-01")[:10])
            return True
        except ValueError:
            return False

    years = ["0000", "0001", "0004", "0100", "0400", "1900", "1999", "2000", "2012", "2013", "2100", "9999"]
    spelled = [
        *years,
        *(f"{y}-{m:02d}" for y in years for m in range(14)),
        *(f"{y}-{m:02d}-{d:02d}" for y in years for m in range(14) for d in range(33)),
    ]
    for text in spelled:
        assert (re.fullmatch(DATE, text) is not None) == real(text), text
        try:
            assert calendar_date(text) == text and real(text), text
        except ValueError:
            assert not real(text), text


# -- 17. nits (issue 23 §4.19) ---------------------------------------------------------------------
def test_a_paper_s_year_is_printed_as_a_year(decomposed, server_env):
    shown = citegraph("paper", "R", env=server_env)
    assert shown.returncode == 0 and "2020" in shown.stdout and "2,020" not in shown.stdout, shown.stdout


def test_a_number_of_5000_digits_is_refused_in_words(tmp_path):
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
    (tmp_path / "c.toml").write_text(f"heap = {'9' * 5000}\n")
    for args in (("query", "most_cited", "-p", f"limit={'9' * 5000}"), ("--config", str(tmp_path / "c.toml"), "stats")):
        done = citegraph(*args, env=env)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert "set_int_max_str_digits" not in done.stderr and len(done.stderr) < 400, done.stderr


def test_an_input_that_is_a_device_or_a_pipe_is_called_so(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
    for path, kind in ((tmp_path / "fifo", "a named pipe (FIFO)"), (Path("/dev/zero"), "a device")):
        done = citegraph("ingest", "jsonl", str(path), env=env)
        assert done.returncode != 0 and f"{path}: {kind}, not a regular file" in done.stderr, done.stderr
    assert not (tmp_path / "data").exists()


def test_serve_on_a_busy_port_says_so_without_announcing_itself(tmp_path):
    busy = socket.create_server(("127.0.0.1", 0))
    try:
        port = busy.getsockname()[1]
        done = citegraph(
            "serve", "--port", str(port), env={**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}, timeout=120
        )
    finally:
        busy.close()
    assert done.returncode != 0 and "http://" not in done.stdout, done.stdout
    assert (
        done.stderr == f"Error: cannot serve on 127.0.0.1:{port}: Address already in use — is another service "
        "using the port? Choose another with --port\n"
    )
    assert not (tmp_path / "data").exists(), "the graph is not opened for a service that cannot listen"


# -- issue 23 §4.12: a statement whose client died ran on in the server ------------------------
def test_every_transaction_carries_the_timeout_of_its_mode(arcade_server, server_config, monkeypatch, caplog):
    """``CITEGRAPH_READ_TIMEOUT`` / ``CITEGRAPH_WRITE_TIMEOUT`` reach the server in each
    transaction's BEGIN (Bolt's ``tx_timeout``, ms), whole reads, streams, writes and schema alike."""
    arcade_server.recreate_database()
    monkeypatch.setenv("CITEGRAPH_READ_TIMEOUT", "2.5")
    monkeypatch.setenv("CITEGRAPH_WRITE_TIMEOUT", "40")
    config = Config.load(
        None,
        uri=server_config.uri,
        user=server_config.user,
        password=server_config.password,
        database=server_config.database,
    )
    caplog.set_level(logging.DEBUG, logger="neo4j.io")
    with open_store(config) as store:
        store.run("stats/labels")
        list(store.rows("most_cited", limit=1))
        store.write(Write("ingest/stubs", {"rows": [{"id": "T1", "count": 0}]}))
        store.apply("schema")
    timeouts = [(begin["tx_metadata"]["query"], begin["tx_timeout"]) for begin in begins(caplog)]
    assert timeouts[:3] == [("stats/labels", 2500), ("most_cited", 2500), ("ingest/stubs", 40000)]
    assert set(timeouts[3:]) == {("schema", 40000)} and len(timeouts) == 3 + len(queries.load("schema").statements)


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_timeout_that_is_not_seconds_is_refused_in_one_line(monkeypatch, value):
    monkeypatch.setenv("CITEGRAPH_WRITE_TIMEOUT", value)
    with pytest.raises(
        ConfigError,
        match=r"^CITEGRAPH_WRITE_TIMEOUT \(or 'write_timeout' in the config file\) must be "
        r"seconds, a number of 0 \(no limit\) or more, got '",
    ):
        Config.load(None)


#: About a second of work for ArcadeDB on an empty graph (2.25 million pairs).
SLOW = queries.parse(
    "slow",
    "// Counts pairs.\n// $n: int — range\n// Mode: read\n// Returns: pairs\n"
    "UNWIND range(1, $n) AS a UNWIND range(1, $n) AS b WITH a, b WHERE (a * b) % 7 = 0 "
    "RETURN count(*) AS pairs\n",
)


def test_arcadedb_runs_a_transaction_past_its_timeout(server_config, monkeypatch):
    """ArcadeDB 26.10's Bolt server reads only ``db`` and ``mode`` from BEGIN: the timeout is
    ignored and the statement runs to its end (Neo4j stops it with
    ``Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration``). When this test
    fails, ArcadeDB honours the timeout: assert the error instead."""
    monkeypatch.setattr(store_module, "load", lambda name: SLOW if name == SLOW.name else queries.load(name))
    config = Config(
        uri=server_config.uri,
        user=server_config.user,
        password=server_config.password,
        database=server_config.database,
        read_timeout=0.05,
    )
    with open_store(config) as store:
        started = time.monotonic()
        assert store.value("slow", n=1500) == 596_204  # pairs whose product is a multiple of 7
        assert time.monotonic() - started > 0.2


class _StatementLimitedServer(ArcadeServer):
    """The embedded server with ArcadeDB's own statement limit (``arcadedb.command.timeout``,
    ms), the limit it does enforce."""

    def command(self, bolt_port: int, http_port: int) -> list[str]:
        java, *rest = super().command(bolt_port, http_port)
        return [java, "-Darcadedb.command.timeout=300", *rest]


@pytest.mark.slow
def test_a_statement_stopped_at_the_servers_time_limit_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "load", lambda name: SLOW if name == SLOW.name else queries.load(name))
    server = _StatementLimitedServer(tmp_path / "home", heap="512m")
    info = server.start()
    try:
        config = Config(uri=info.uri, user="root", password=server.password(), database="citegraph", read_timeout=0.3)
        stopped = (
            r"^the graph server stopped 'slow' at its time limit: the command exceeded the "
            r"arcadedb.command.timeout of 300ms \(citegraph's read timeout: 0.3 s, CITEGRAPH_READ_TIMEOUT\)$"
        )
        with open_store(config) as store:
            with pytest.raises(ServerError, match=stopped):
                store.value("slow", n=3000)
            with pytest.raises(ServerError, match=stopped):
                next(store.rows("slow", n=3000))
            assert store.run("stats/labels") == []  # the store goes on
    finally:
        server.stop()


# -- 14. libraries (issue 23, §4.6 and §4.8) ----------------------------------------------------
LIBRARIES = [  # (case, file, content, line, field, reason)
    ("csl-deep", "refs.json", DEEP.encode(), 1, None, "malformed JSON: nested too deeply"),
    ("csl-syntax", "refs.json", b'[{"id": "a"},\n {"id": }]', 2, None, "malformed JSON: Expecting value at column 9"),
    ("csl-issued", "refs.json", b'[{"id": "a", "issued": "2001"}]', 1, "issued", 'expected {"date-parts"'),
    ("csl-date-parts", "refs.json", b'[{"id": "a", "issued": {"date-parts": 2001}}]', 1, "issued", "date-parts"),
    ("csl-title", "refs.json", b'[{"id": "a", "title": ["A"]}]', 1, "title", "expected a string, got list"),
    ("csl-surrogate", "refs.json", b'[{"id": "a"}, {"id": "b", "title": "Caf\\udce9"}]', 2, "title", "surrogate"),
    ("ris-latin-1", "refs.ris", b"TY  - JOUR\nTI  - Caf\xe9\nER  - \n", 2, None, "not valid UTF-8 (byte 0xe9)"),
    ("bib-latin-1", "refs.bib", b"@article{a,\n title = {Caf\xe9}}\n", 2, None, "not valid UTF-8 (byte 0xe9)"),
]


@pytest.mark.parametrize("case,name,content,line,field,reason", LIBRARIES, ids=[c[0] for c in LIBRARIES])
def test_hostile_libraries_are_one_located_error(tmp_path, case, name, content, line, field, reason):
    from citegraph.library.entries import read_library

    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        read_library(path)
    problem = raised.value.problem
    assert (problem.where.path, problem.where.line, problem.field) == (path, line, field)
    assert reason in problem.reason


def test_a_deep_csl_library_on_the_command_line_is_one_line(tmp_path):
    path = tmp_path / "refs.json"
    path.write_text(DEEP)
    done = citegraph("library", "match", str(path), env={**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"Error: {path}:1: malformed JSON: nested too deeply"
