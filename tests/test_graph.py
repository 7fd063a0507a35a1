"""The graph layer on a real ArcadeDB Bolt server: named queries, streaming, transactions,
the managed server's life cycle, and the uniqueness constraints."""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
import types

import neo4j
import pytest

from citegraph.config import Config
from citegraph.errors import CitegraphError, ConfigError, ServerError
from citegraph.graph import ArcadeDBBackend, ArcadeServer, Neo4jBackend, Write, open_store, queries
from citegraph.graph import arcadedb as arcadedb_module
from citegraph.graph import store as store_module
from citegraph.graph.schema import apply_schema, clear_graph

from conftest import begins

SAMPLE_VALUES = {"int": 5, "float": 0.5, "string": "x", "id": "x", "bool": False, "list": [], "map": {}}


def test_every_query_file_has_a_header_and_declares_exactly_its_parameters():
    names = queries.names()
    assert "schema" in names and "ingest/papers" in names and "stats/labels" in names
    for name in names:
        query = queries.load(name)  # raises if the header and the text disagree
        assert query.doc, name
        assert "Returns:" in query.doc, f"{name}: the header must say what it returns"


def test_a_header_that_disagrees_with_the_text_is_refused():
    with pytest.raises(CitegraphError, match=r"declares \['a'\] but the text uses \['b'\]"):
        queries.parse("bad", "// Doc.\n// $a: int — one\n// Returns: x\nRETURN $b AS x\n")
    with pytest.raises(CitegraphError, match="no header comment"):
        queries.parse("bare", "RETURN 1 AS x\n")
    with pytest.raises(CitegraphError, match="unknown type 'number'"):
        queries.parse("typed", "// Doc.\n// $a: number\n// Returns: x\nRETURN $a AS x\n")


@pytest.mark.parametrize(
    "mode_lines,error",
    [
        (
            "",
            r"query 'm': the header must declare its access mode once, as '// Mode: read' or '// Mode: write' \(found 0\)",
        ),
        ("// Mode: read\n// Mode: write\n", r"must declare its access mode once.*\(found 2\)"),
        ("// Mode: readonly\n", r"query 'm': unknown mode 'readonly' \(known: read, write\)"),
        ("// Mode:\n", r"query 'm': unknown mode '' \(known: read, write\)"),
    ],
)
def test_a_header_without_one_valid_mode_is_refused(mode_lines, error):
    with pytest.raises(CitegraphError, match=error):
        queries.parse("m", f"// Doc.\n{mode_lines}// Returns: x\nRETURN 1 AS x\n")


def test_every_query_file_declares_its_access_mode():
    """The catalogue's reads and writes (each declaration is checked against Neo4j's parse
    tree by tests/test_cypher_lint.py)."""
    modes = {name: queries.load(name).mode for name in queries.names()}
    assert set(modes.values()) == {"read", "write"}
    assert modes["paper"] == modes["ingest/checkpoint"] == modes["recommend/features"] == "read"
    assert modes["schema"] == modes["ingest/papers"] == modes["admin/delete_some"] == "write"


def test_parameters_convert_command_line_strings_to_their_declared_types():
    query = queries.parse(
        "p",
        "// Doc.\n// $n: int — n\n// $ids: list — ids\n// $id: string — an id\n"
        "// $on: bool — flag\n// Mode: read\n// Returns: x\nRETURN [$n, $ids, $id, $on] AS x\n",
    )
    assert query.parameters["n"].parse("10") == 10
    assert query.parameters["ids"].parse('["a", "b"]') == ["a", "b"]
    assert query.parameters["id"].parse("77490025") == "77490025"  # numeric-looking ids stay strings
    assert query.parameters["on"].parse("true") is True
    with pytest.raises(CitegraphError, match=r"\$n must be int"):
        query.parameters["n"].parse("ten")
    with pytest.raises(CitegraphError, match=r"\$id: a lone UTF-16 surrogate \(\\udcff\)"):
        query.parameters["id"].parse("P\udcff")  # an argument's undecodable byte, as Python keeps it
    with pytest.raises(CitegraphError, match=r"needs parameter\(s\) \$ids, \$on"):
        query.check({"n": 1, "id": "a"})


def test_every_query_file_runs_on_the_server(store):
    """Each .cypher file is sent to the server with values of its declared types."""
    for name in queries.names():
        query = queries.load(name)
        params = {p.name: SAMPLE_VALUES[p.type] for p in query.parameters.values()}
        if len(query.statements) > 1:
            store.apply(name, **params)
        else:
            list(store.rows(name, **params))


def test_schema_is_idempotent_and_paper_ids_are_unique(store, server_config):
    apply_schema(store)
    apply_schema(store)
    store.write(Write("ingest/papers", {"ingested": "2024-01-01", "rows": [{"id": "P1", "props": {"title": "One"}}]}))
    with neo4j.GraphDatabase.driver(server_config.uri, auth=(server_config.user, server_config.password)) as driver:
        constraints = driver.execute_query("SHOW CONSTRAINTS", database_=server_config.database).records
        assert {"paper_id", "field_name", "author_id"} <= {r["name"] for r in constraints}
        with pytest.raises(neo4j.exceptions.ConstraintError):
            driver.execute_query("CREATE (:Paper {id: 'P1'})", database_=server_config.database)
    assert store.run("paper", id="P1")[0]["title"] == "One"


def test_a_write_batch_is_one_transaction(store):
    """If any statement of a batch fails, nothing of the batch is written."""
    apply_schema(store)
    good = Write("ingest/papers", {"ingested": "2024-01-01", "rows": [{"id": "A", "props": {"title": "A"}}]})
    bad = Write(
        "ingest/papers",
        {"ingested": "2024-01-01", "rows": [{"id": "B", "props": {"nested": {"maps": "are not properties"}}}]},
    )
    with pytest.raises(neo4j.exceptions.Neo4jError):
        store.write(good, bad)
    assert store.run("paper", id="A") == []
    counters = store.write(good)
    assert counters[0]["nodes_created"] == 1


def test_rows_are_streamed_lazily_and_a_stream_can_be_abandoned(store):
    apply_schema(store)
    store.write(
        Write(
            "ingest/papers",
            {"ingested": "2024-01-01", "rows": [{"id": f"P{i:04}", "props": {"year": 2000}} for i in range(3000)]},
        )
    )
    store.fetch_size = 100
    rows = store.rows("most_cited", limit=3000)
    assert isinstance(rows, types.GeneratorType)
    first = next(rows)
    assert first["id"] == "P0000"
    rows.close()  # abandons the rest; the session is released
    assert store.value("admin/delete_some", limit=10) == 10


#: A read whose string literal holds every update keyword.
LITERAL_SET = queries.parse(
    "literal_set",
    "// A read.\n// $id: string — a paper\n// Mode: read\n// Returns: text\n"
    "RETURN 'SET p.x = 1; CREATE (q) MERGE (r) DELETE q REMOVE r.x' + $id AS text\n",
)


def test_each_query_runs_in_a_transaction_of_its_declared_mode(store, monkeypatch, caplog):
    """Routing follows the header, not keywords: a ``SET`` in a string literal is still a
    read. Whole reads and writes are the driver's managed transactions, a stream an
    explicit one, each begun with the mode (what a Neo4j cluster routes on)."""
    monkeypatch.setattr(
        store_module, "load", lambda name: LITERAL_SET if name == LITERAL_SET.name else queries.load(name)
    )
    caplog.set_level(logging.DEBUG, logger="neo4j.io")
    assert store.run("literal_set", id="!") == [{"text": "SET p.x = 1; CREATE (q) MERGE (r) DELETE q REMOVE r.x!"}]
    assert [begin.get("mode") for begin in begins(caplog)] == ["r"]
    caplog.clear()
    assert next(store.rows("literal_set", id="?"))["text"].endswith("?")
    store.write(Write("ingest/stubs", {"rows": [{"id": "S1", "count": 0}]}))
    assert store.value("admin/delete_some", limit=5) == 1  # a write that returns a row
    assert [(begin.get("mode"), begin["tx_metadata"]) for begin in begins(caplog)] == [
        ("r", {"query": "literal_set"}),
        (None, {"query": "ingest/stubs"}),
        (None, {"query": "admin/delete_some"}),
    ]


def test_a_missing_or_unknown_parameter_fails_before_the_server(store):
    with pytest.raises(CitegraphError, match=r"'most_cited' needs parameter\(s\) \$limit"):
        store.run("most_cited")
    with pytest.raises(CitegraphError, match=r"'mdcr/most_cited' has no parameter\(s\) \$field"):
        store.run("mdcr/most_cited", field="Computer science", limit=5)  # the field's is another statement
    with pytest.raises(CitegraphError, match="no query named 'nope'"):
        store.run("nope")


def test_clear_graph_deletes_in_batches(store):
    apply_schema(store)
    store.write(Write("ingest/stubs", {"rows": [{"id": f"X{i}", "count": 0} for i in range(250)]}))
    assert clear_graph(store, batch=100) == 250
    assert store.run("stats/labels") == []


@pytest.mark.slow
def test_managed_server_lifecycle(tmp_path, monkeypatch):
    server = ArcadeServer(tmp_path / "home", heap="512m")
    assert server.status() is None
    info = server.start()
    try:
        assert server.status() == info
        assert server.started_here
        assert stat.S_IMODE((server.home / "credentials").stat().st_mode) == 0o600
        assert "ArcadeDB Server" in server.log_file.read_text()
        again = ArcadeServer(tmp_path / "home")
        assert again.start() == info and not again.started_here  # reused, not restarted
        with pytest.raises(ServerError, match="already runs on port"):
            again.start(port=info.bolt_port + 1)
        # A store asks before every statement whether the server runs: of another process's
        # server, once fully (state file, command line, Bolt port), then only whether it lives.
        connections = []
        monkeypatch.setattr(arcadedb_module, "port_open", lambda port: connections.append(port) or True)
        assert [again.running() for _ in range(3)] == [info] * 3
        assert connections == [info.bolt_port]
    finally:
        assert server.stop()
    assert server.status() is None and not server.state_file.exists()
    assert not server.stop()
    with pytest.raises(ServerError, match="no longer runs"):
        again.running()  # it died: known at once


@pytest.mark.slow
def test_embedded_default_starts_and_stops_its_own_server(tmp_path):
    config = Config(data_dir=tmp_path, heap="512m")
    with open_store(config) as store:
        assert "ArcadeDB" in store.server_info()["agent"]
        apply_schema(store)
        store.write(Write("ingest/papers", {"ingested": "2024-01-01", "rows": [{"id": "E1", "props": {"year": 2020}}]}))
        pid = ArcadeServer(tmp_path / "arcadedb").status().pid
    assert ArcadeServer(tmp_path / "arcadedb").status() is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with open_store(config) as store:  # the data persisted in the data directory
        assert store.run("paper", id="E1")[0]["year"] == 2020


@pytest.mark.slow
def test_reads_retry_while_the_server_restarts(tmp_path):
    server = ArcadeServer(tmp_path / "home", heap="512m")
    info = server.start()
    config = Config(uri=info.uri, user="root", password=server.password(), database="citegraph")
    with open_store(config) as store:
        server.stop()
        restart = threading.Thread(target=lambda: (time.sleep(1.0), server.start(port=info.bolt_port)))
        restart.start()
        try:
            assert store.run("stats/labels") == []  # refused at first, answered after the restart
        finally:
            restart.join()
            server.stop()


def test_user_server_errors_name_what_is_missing(tmp_path):
    with pytest.raises(ConfigError, match="CITEGRAPH_PASSWORD is not set"):
        open_store(Config(uri="bolt://127.0.0.1:1", data_dir=tmp_path))
    with pytest.raises(ServerError, match="cannot reach the graph at bolt://127.0.0.1:1"):
        open_store(Config(uri="bolt://127.0.0.1:1", password="x", data_dir=tmp_path))


def test_user_server_with_a_wrong_password_is_refused(server_config):
    wrong = Config(uri=server_config.uri, user=server_config.user, password="wrong-password")
    with pytest.raises(ServerError, match="refused user 'root'"):
        open_store(wrong)


def test_backends_empty_the_graph(arcade_server, store):
    """What `citegraph clear` asks of the backend: ArcadeDB drops the database, a user's server
    deletes in batches of Cypher (here too on ArcadeDB, which speaks the same Cypher)."""

    def fill():
        store.write(
            Write(
                "ingest/papers",
                {"ingested": "2024-01-01", "rows": [{"id": f"P{i}", "props": {"title": "t"}} for i in range(25)]},
            )
        )

    fill()
    assert Neo4jBackend().clear(store) == "deleted 25 nodes"
    assert store.run("stats/labels") == []
    fill()
    assert ArcadeDBBackend(arcade_server).clear(store) == "dropped and created the embedded database"
    assert store.run("stats/labels") == []
