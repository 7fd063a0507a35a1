"""The command line as users run it: real subprocesses against the session server and
against the embedded default."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citegraph.graph import ArcadeServer
from citegraph.graph.processes import free_port
from citegraph.retrieval.spec import Dense

from conftest import citegraph, shared


def test_help_lists_formats_and_queries():
    result = citegraph("ingest", "--help")
    assert result.returncode == 0
    for name in ("s2orc", "unarxive", "acl200", "taxonomy", "jsonl"):
        assert name in result.stdout
    listed = citegraph("query", "--list").stdout
    assert "most_cited -p limit=<int>" in listed and "co_cited -p id=<id> -p limit=<int>" in listed


def test_a_declared_required_option_left_out_is_a_usage_error(tmp_path):
    """Flags made of declared options (citegraph.options) keep click's own check: a required one
    left out stops with its name and exit code 2 (it was a traceback: click 8.3+ takes a given
    ``default=None`` for a value)."""
    for args, flag in [
        (("synth", "--out", str(tmp_path / "corpus.jsonl")), "--papers"),
        (("evaluate", "large-scale", "--out", str(tmp_path / "run")), "--pools"),
    ]:
        result = citegraph(*args)
        assert result.returncode == 2 and f"Missing option '{flag}'" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_ingest_stats_and_query_on_a_user_server(store, server_env):
    result = citegraph(
        "ingest", "s2orc", str(shared("samples/s2orc/metadata_sample.jsonl")), "--no-progress", env=server_env
    )
    assert result.returncode == 0, result.stderr
    assert "external stubs created" in result.stdout and "6,049" in result.stdout
    assert "Using the embedded" not in result.stderr
    stats = json.loads(citegraph("stats", "--json", env=server_env).stdout)
    assert {"label": "External", "count": 6049} in stats["labels"]
    rows = citegraph("query", "most_cited", "-p", "limit=2", "--json", env=server_env).stdout.splitlines()
    assert [json.loads(r)["id"] for r in rows] == ["2871678", "2871295"]  # 297 and 180 inbound in the sample
    paper = json.loads(citegraph("query", "paper", "-p", "id=77490025", "--json", env=server_env).stdout)
    assert paper["year"] == 1975  # a numeric-looking id stays a string parameter


def test_errors_are_one_clear_line(store, server_env, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "P1"}\n{"id": "P2", "year": "soon"}\n')
    result = citegraph("ingest", "jsonl", str(bad), "--no-progress", env=server_env)
    assert result.returncode == 2
    assert f"Error: {bad}:2: field 'year' expected an integer" in result.stderr
    assert "Traceback" not in result.stderr
    result = citegraph("query", "most_cited", "-p", "limit=many", env=server_env)
    assert result.returncode == 2 and "$limit must be int" in result.stderr
    result = citegraph("query", "most_cited", "-p", "top=3", env=server_env)
    assert "has no parameter $top (it has: limit)" in result.stderr
    result = citegraph("paper", "NOPE-0000", env=server_env)  # an id that does not exist: what was given is wrong
    assert result.returncode == 2 and "no paper with id 'NOPE-0000'" in result.stderr
    env = {k: v for k, v in server_env.items() if k != "CITEGRAPH_PASSWORD"}
    env["CITEGRAPH_CONFIG"] = str(tmp_path / "absent.toml")
    result = citegraph("stats", env=env)
    assert result.returncode == 1 and "CITEGRAPH_PASSWORD is not set" in result.stderr


def test_skipped_lines_are_listed_in_the_data_folder_not_where_the_command_runs(store, server_env, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "P1"}\n{"id": "P2", "year": "soon"}\n')
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "citegraph.cli", "ingest", "jsonl", str(bad), "--skip-bad", "--no-progress"],
        cwd=work,
        env=server_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rejects = Path(server_env["CITEGRAPH_DATA_DIR"]) / "rejects" / "jsonl.jsonl"
    assert f"1 bad line(s) listed in {rejects}" in done.stdout
    assert json.loads(rejects.read_text())["field"] == "year"
    assert list(work.iterdir()) == []


def test_config_file_supplies_the_connection(store, server_env, tmp_path):
    config = tmp_path / "citegraph.toml"
    config.write_text(
        f'uri = "{server_env["CITEGRAPH_URI"]}"\nuser = "root"\n'
        f'password = "{server_env["CITEGRAPH_PASSWORD"]}"\ndatabase = "citegraph"\n'
    )
    env = {k: v for k, v in server_env.items() if not k.startswith("CITEGRAPH_")}
    result = citegraph("--config", str(config), "stats", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["labels"] == []


@pytest.mark.slow
def test_server_start_status_stop(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    port = free_port()
    base = ["--data-dir", str(tmp_path)]
    started = citegraph(*base, "server", "start", "--port", str(port), "--heap", "512m", env=env)
    try:
        assert started.returncode == 0, started.stderr
        assert f"bolt://127.0.0.1:{port}" in started.stdout
        status = citegraph(*base, "server", "status", env=env)
        assert status.returncode == 0 and f"bolt://127.0.0.1:{port}" in status.stdout
        # a command without --uri reuses the running server and leaves it running
        assert citegraph(*base, "stats", "--json", env=env).returncode == 0
        assert ArcadeServer(tmp_path / "arcadedb").status().bolt_port == port
    finally:
        stopped = citegraph(*base, "server", "stop", env=env)
    assert stopped.stdout.strip() == "stopped"
    status = citegraph(*base, "server", "status", env=env)
    assert status.returncode == 1 and "no server runs" in status.stdout


def test_index_and_search_from_the_graph(store, server_env, tiny_bert, tmp_path):
    pytest.importorskip("faiss")
    sample = str(shared("samples/s2orc/metadata_sample.jsonl"))
    assert citegraph("ingest", "s2orc", sample, "--no-progress", env=server_env).returncode == 0
    built = citegraph("index", "bm25", "--backend", "bm25s", env=server_env)
    assert built.returncode == 0, built.stderr
    assert "bm25: 1,000 documents indexed" in built.stdout
    found = citegraph("search", "TRAIL-induced apoptosis resistance in cancer", "-k", "3", "--json", env=server_env)
    rows = [json.loads(line) for line in found.stdout.splitlines()]
    assert rows[0]["id"] == "2871678" and rows[0]["title"].startswith("Mechanisms of resistance to TRAIL")
    pool = tmp_path / "pool.txt"
    pool.write_text("77490025\n2871295\n")
    pooled = citegraph("search", "TRAIL apoptosis", "--pool", str(pool), "--json", env=server_env)
    assert {json.loads(line)["id"] for line in pooled.stdout.splitlines()} <= {"77490025", "2871295"}
    encoder = f"hf:{tiny_bert}"
    dense = citegraph("index", "dense", "--encoder", encoder, "--no-progress", env=server_env)
    assert dense.returncode == 0, dense.stderr
    fused = citegraph("search", "apoptosis", "--with", f"rrf(bm25,{encoder})", "-k", "4", "--json", env=server_env)
    assert fused.returncode == 0, fused.stderr
    assert len(fused.stdout.splitlines()) == 4
    # the Faiss flags come from AnnConfig's fields; rebuilt from the cached vectors, the index is IVF
    ivf = citegraph(
        "index", "dense", "--encoder", encoder, "--kind", "ivf", "--nlist", "4", "--nprobe", "2", env=server_env
    )
    assert ivf.returncode == 0, ivf.stderr
    manifest = Path(server_env["CITEGRAPH_DATA_DIR"]) / "indexes" / Dense(encoder).folder / "manifest.json"
    assert json.loads(manifest.read_text())["params"] == {"nlist": 4, "nprobe": 2}
    assert (
        len(
            citegraph("search", "apoptosis", "--with", encoder, "-k", "4", "--json", env=server_env).stdout.splitlines()
        )
        == 4
    )
    missing = citegraph("search", "x", "--with", "specter", env=server_env)
    assert missing.returncode == 1 and "citegraph index dense --encoder specter" in missing.stderr


def test_bulk_and_neo4j_admin_export_from_the_cli(server_env, tmp_path):
    sample = str(shared("samples/s2orc/metadata_sample.jsonl"))
    refused = citegraph("ingest", "s2orc", sample, "--bulk", env=server_env)
    assert refused.returncode == 2 and "citegraph export neo4j-admin" in refused.stderr
    streaming_only = citegraph("ingest", "s2orc", sample, "--bulk", "--batch-size", "10", "--restart")
    assert streaming_only.returncode == 2
    assert "--batch-size and --restart do not apply to --bulk" in streaming_only.stderr
    assert citegraph("ingest", "s2orc", sample, "--bulk", "--batch-size", "2000").returncode == 2  # given is given
    exported = citegraph(
        "export",
        "neo4j-admin",
        "s2orc",
        sample,
        "--out",
        str(tmp_path / "csv"),
        "--mounted-at",
        "/import",
        "--no-progress",
        env=server_env,
    )
    assert exported.returncode == 0, exported.stderr
    assert "--nodes=Paper=/import/paper.header.csv,/import/paper/data_0.csv" in exported.stdout
    assert "--nodes=Paper:External=" in exported.stdout
    assert (tmp_path / "csv" / "paper" / "data_0.csv").is_file()


def test_every_command_a_help_text_names_exists():
    """`cite --help` once sent users to `citegraph train local`, which never existed."""
    import click

    from citegraph.cli import main

    def commands(group: click.Group, path: tuple[str, ...] = ()):
        for name in group.list_commands(click.Context(group)):
            command = group.get_command(click.Context(group), name)
            assert command is not None, (*path, name)
            yield (*path, name), command
            if isinstance(command, click.Group):
                yield from commands(command, (*path, name))

    known = {path for path, _ in commands(main)}
    named = []
    for path, command in commands(main):
        texts = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
        for text in texts:
            for words in re.findall(r"citegraph((?: [a-z][a-z-]+)+)", text):
                words = tuple(words.split())
                longest = max(
                    (words[:n] for n in range(1, len(words) + 1) if words[:n] in known), default=None, key=len
                )
                named.append((path, words, longest))
    assert named, "no help text names a command: the test reads nothing"
    assert [(path, words) for path, words, found in named if found is None] == []


@pytest.mark.slow
def test_the_drivers_retries_go_to_the_log_not_the_terminal(tmp_path):
    """A user's server that stops mid-ingest: the neo4j driver retries, logging each retry at
    WARNING. Those lines went to stderr (Python's last-resort handler); now the terminal gets one
    error line and the data folder's log the driver's."""
    from citegraph.graph.arcadedb import DATABASE, USER

    server = ArcadeServer(tmp_path / "arcadedb", heap="512m")
    info = server.start()
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    env |= {
        "CITEGRAPH_URI": info.uri,
        "CITEGRAPH_USER": USER,
        "CITEGRAPH_PASSWORD": server.password(),
        "CITEGRAPH_DATABASE": DATABASE,
        "CITEGRAPH_DATA_DIR": str(data),
    }
    corpus = tmp_path / "corpus.jsonl"
    assert citegraph("synth", "--papers", "20000", "--out", str(corpus), env=env).returncode == 0
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "citegraph.cli", "ingest", "s2orc", str(corpus), "--batch-size", "200"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        time.sleep(8)  # the schema, then batches
        assert child.poll() is None, child.communicate()
        os.kill(info.pid, signal.SIGKILL)
        _, stderr = child.communicate(timeout=120)
    finally:
        server.stop()
    assert child.returncode == 1, stderr
    assert "retried" not in stderr and "Traceback" not in stderr, stderr
    assert [line for line in stderr.splitlines() if line.startswith("Error: ")], stderr
    assert "neo4j" in (data / "logs" / "citegraph.log").read_text()


def test_each_command_is_declared_by_the_module_its_start_up_imports():
    """A command imports only its own module (``app.COMMAND_MODULES``): the map names every
    command of every module of citegraph/cli, each by the module that declares it."""
    import importlib
    import pkgutil

    import citegraph.cli
    from citegraph.cli.app import COMMAND_MODULES, main

    for module in pkgutil.iter_modules(citegraph.cli.__path__):
        if module.name != "__main__":  # it runs the command line
            importlib.import_module(f"citegraph.cli.{module.name}")
    declared = {name: command.callback.__module__.rsplit(".", 1)[1] for name, command in main.commands.items()}
    assert declared == COMMAND_MODULES


def test_a_command_loads_no_other_commands_module():
    probe = (
        "import sys; from citegraph.cli import main; "
        "main(['cite', '--help'], standalone_mode=False); "
        "print(sorted(m for m in sys.modules if m.startswith('citegraph.cli.')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert (
        done.stdout.strip().splitlines()[-1]
        == "['citegraph.cli.app', 'citegraph.cli.cite', 'citegraph.cli.flags', 'citegraph.cli.logs', 'citegraph.cli.output']"
    )
