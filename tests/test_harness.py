"""The benchmark harness: one run() for every benchmark, the registry by name (complete from a
bare import), and `citegraph evaluate <benchmark>` generated from it — on the CSFCube fixture
release and a TREC run file, real data and real retrievers."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.errors import CitegraphError
from citegraph.evaluation import registry
from citegraph.evaluation.csfcube import CSFCube, official, read_release
from citegraph.evaluation.harness import Topics, run, score_topics
from citegraph.evaluation.registry import registered
from citegraph.evaluation.scorers import RunFile
from citegraph.options import from_options, option, options_of

FIXTURE = Path(__file__).parent / "fixtures" / "csfcube"
HELP = Path(__file__).parent / "fixtures" / "cli_help"  # --help of the commands before their options were derived
BENCHMARKS = {"large-scale", "mdcr", "csfcube", "contextualise", "local", "recommend", "cite", "trec"}


def test_every_benchmark_is_registered_and_is_a_command():
    assert set(registered()) == BENCHMARKS
    listed = CliRunner().invoke(main, ["evaluate", "--help"])
    assert listed.exit_code == 0
    for name, entry in registered().items():
        assert f"  {name} " in listed.output
        shown = CliRunner().invoke(main, ["evaluate", name, "--help"])
        assert shown.exit_code == 0, shown.output
        flags = [o.flag.split("/")[0] for o in entry.options] + ["--out"]
        flags += [entry.retrievers.flag] if entry.retrievers else []
        assert all(flag in shown.output for flag in flags), name


def test_declared_option_types_are_enforced():
    bad = CliRunner().invoke(main, ["evaluate", "local", "--out", "unused", "--test-share", "1.5"])
    assert bad.exit_code == 2 and "--test-share" in bad.output
    bad = CliRunner().invoke(
        main, ["evaluate", "csfcube", "--data", str(FIXTURE), "--out", "unused", "--run-facet", "methods"]
    )
    assert bad.exit_code == 2 and "'methods' is not one of" in bad.output
    with pytest.raises(CitegraphError, match="unknown benchmark 'nope'; choose from large-scale"):
        registry.get("nope")
    with pytest.raises(CitegraphError, match="benchmark 'trec' takes no option nope"):
        registry.build("trec", nope=1)


def test_csfcube_end_to_end_through_the_registry_and_the_cli(tmp_path):
    out = tmp_path / "cli"
    result = CliRunner().invoke(
        main, ["evaluate", "csfcube", "--data", str(FIXTURE), "--with", "bm25:bm25s", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "CSFCube all, official measures" in result.output and f"results in {out}" in result.output
    for name in ("results.json", "results.csv", "results.md", "runs/bm25_bm25s.run", "indexes"):
        assert (out / name).exists(), name
    saved = json.loads((out / "results.json").read_text(encoding="utf-8"))

    # the same benchmark built by name from Python, with the run the CLI wrote as a retriever:
    # a retriever handed to the harness ranks the whole query paper — ids are the queries' own
    again = run(registry.build("csfcube", data_dir=FIXTURE, models=["bm25:bm25s"]), [], tmp_path / "py")
    assert again.per_query == saved["per_query"] and again.config == saved["config"]
    assert [t.rows for t in again.tables] == [t["rows"] for t in saved["tables"]]
    assert again.details["summary"]["bm25:bm25s"]["official"]["all"]["R@20"] == 1.0
    assert again.out == tmp_path / "py" and again.figures == []  # CSFCube's tables have no figure


def test_a_retriever_handed_to_csfcube_ranks_whole_papers(tmp_path):
    results = run(CSFCube(FIXTURE, models=()), [RunFile(_run_file(tmp_path), "mine")], tmp_path / "out")
    assert results.config["systems"]["mine"] == "mine: whole query paper vs whole candidates"
    release = read_release(FIXTURE)
    for qid, pool in release.pools.items():  # every pool ranked in id order, scored as the official script
        expected = official([pool.qrels[c] for c in sorted(pool.candidates)])
        assert {m: results.per_query["mine"]["official"][m][qid] for m in expected} == pytest.approx(expected)


def _run_file(folder: Path) -> Path:
    """A TREC run of whole query papers (qid: the pid), each pool's candidates in id order."""
    release = read_release(FIXTURE)
    path = folder / "mine.run"
    candidates: dict[str, set[str]] = {}
    for qid, pool in release.pools.items():
        candidates.setdefault(qid.split("_")[0], set()).update(pool.candidates)
    with open(path, "w", encoding="utf-8") as f:
        for pid, docs in candidates.items():
            for rank, doc in enumerate(sorted(docs), start=1):
                f.write(f"{pid} Q0 {doc} {rank} {1000 - rank} mine\n")
    return path


def test_topics_rank_within_pools_and_leave_the_query_out(tmp_path):
    from citegraph.retrieval.base import Document

    path = tmp_path / "r.run"
    path.write_text("q1 Q0 q1 1 9 t\nq1 Q0 a 2 8 t\nq1 Q0 b 3 7 t\nq1 Q0 c 4 6 t\nq2 Q0 c 1 9 t\nq2 Q0 a 2 8 t\n")
    retriever = RunFile(path, "r")
    queries = {"q1": Document("q1", ""), "q2": Document("q2", "")}
    qrels = {"q1": {"b": 1}, "q2": {"a": 1}}
    pooled = Topics(queries, qrels, [{"q1", "a", "b"}, {"a", "c"}], leave_out_query=True)
    assert {q: [h.id for h in r] for q, r in pooled.rank(retriever, 10).items()} == {"q1": ["a", "b"], "q2": ["c", "a"]}
    assert score_topics(retriever, pooled, ["MAP"], 10).mean["MAP"] == pytest.approx(0.5)  # b and a second
    kept = Topics(queries, qrels, [{"q1", "a", "b"}, {"a", "c"}])
    assert [h.id for h in kept.rank(retriever, 10)["q1"]] == ["q1", "a", "b"]
    assert score_topics(retriever, kept, ["MAP"], 10).mean["MAP"] == pytest.approx((1 / 3 + 1 / 2) / 2)


def test_every_listed_benchmark_builds_by_name_in_a_fresh_interpreter(tmp_path):
    """Nothing imported before but the registry: each benchmark the CLI lists is found and built
    (with the inputs it requires; ``local`` and ``recommend`` read the graph, and a benchmark
    builds without touching the store it is handed)."""
    listed = CliRunner().invoke(main, ["evaluate", "--help"]).output
    names = [name for name in registry.CATALOGUE if f"  {name} " in listed]
    assert set(names) == BENCHMARKS
    (tmp_path / "topics.tsv").write_text("q1\tcitation graphs\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "scisumm").mkdir()
    required = {
        "large-scale": {"pools_dir": tmp_path},
        "mdcr": {"directory": tmp_path},
        "csfcube": {"data_dir": FIXTURE},
        "trec": {"topics": tmp_path / "topics.tsv", "qrels": tmp_path / "qrels.txt"},
        "contextualise": {"data_dir": tmp_path / "scisumm"},
    }
    for name in names:
        code = (
            f"import citegraph.evaluation.registry as r\n"
            f"b = r.build({name!r}, store=object(), **{ {k: str(v) for k, v in required.get(name, {}).items()}!r})\n"
            f"print(type(b).__name__, b.name)"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, f"{name}: {done.stderr}"
        assert done.stdout.split()[1] == name, done.stdout


def _option_blocks(help_text: str) -> list[str]:
    """Each option of a --help page (flag, type, help, default) without the whitespace its wrapping
    put in (a width moves the breaks, even inside a long default), sorted."""
    blocks: list[str] = []
    for line in help_text.split("Options:\n", 1)[1].splitlines():
        if line.startswith("  -"):
            blocks.append(line)
        elif blocks and line.strip():
            blocks[-1] += " " + line
    return sorted("".join(block.split()) for block in blocks)


@pytest.mark.parametrize("command", ["evaluate local", "mdcr build", "index dense"])
def test_options_derived_from_config_fields_read_as_the_hand_written_ones(command):
    """The flags, types, help and defaults the commands had when each knob was declared three
    times (tests/fixtures/cli_help, from before): the same, now that the fields declare them."""
    shown = CliRunner().invoke(main, [*command.split(), "--help"])
    assert shown.exit_code == 0, shown.output
    before = (HELP / f"{command.replace(' ', '-')}.txt").read_text(encoding="utf-8")
    assert _option_blocks(shown.output) == _option_blocks(before)


def test_local_options_make_the_configuration_the_command_ran_with():
    """One knob, one declaration: --device and --seed reach both models, --encoder the bi-encoder."""
    from citegraph.local.config import LocalConfig

    values = {o.name: registry.default(o) for o in registry.get("local").options}
    config = from_options(
        LocalConfig,
        values
        | {
            "device": "cpu",
            "seed": 5,
            "encoder": ["scibert", "minilm"],
            "bi_checkpoints": ["10", "20"],
            "bi_steps": 30,
            "depth": 7,
            "first_stages": None,
            "lm_mode": None,
        },
    )
    assert (config.reranker.device, config.biencoder.device, config.seed, config.biencoder.seed) == ("cpu", "cpu", 5, 5)
    assert config.lms == ("scibert", "minilm") and config.biencoder.lm == "scibert"
    assert config.biencoder.checkpoints == (10, 20) and config.biencoder.max_steps == 30
    assert config.prefetch == type(config.prefetch)("bm25", 7) and config.first_stages == ()
    assert config.lm_mode == "shared"  # chosen by the device: a CPU fine-tunes once and shares
    assert from_options(LocalConfig, values) == LocalConfig(lm_mode=config.lm_mode)  # defaults are the fields' own
    with pytest.raises(CitegraphError, match="--bi-checkpoints: 'x' is not a comma-separated list of steps"):
        from_options(LocalConfig, values | {"bi_checkpoints": ["x"]})


@dataclass(frozen=True)
class _Inner:
    seed: int = field(default=1, metadata=option("--seed", "A seed."))


@dataclass(frozen=True)
class _Outer:
    inner: _Inner = field(default_factory=_Inner)
    seed: int = field(default=2, metadata=option("--seed", "A seed."))


def test_a_flag_shared_by_two_fields_must_be_declared_alike():
    with pytest.raises(CitegraphError, match="_Outer: --seed is declared twice, differently"):
        options_of(_Outer)
