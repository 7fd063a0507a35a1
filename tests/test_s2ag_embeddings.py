"""S2AG's embeddings-specter_v2 dataset on a hand-written shard of its real format
(https://api.semanticscholar.org/api-docs/datasets: ``{"corpusid", "model", "vector"}``, the
vector a JSON array in a string). The fixture's vectors have 8 numbers, not SPECTER2's 768:
the format fixes no length, and the reader takes the first line's as the length of all."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from citegraph.errors import InputError
from citegraph.ingest import IngestOptions, get, ingest
from citegraph.ingest.sources.s2ag_embeddings import paper_vectors, shards

from conftest import citegraph, citegraph_ok

EMBEDDINGS = Path(__file__).parent / "fixtures" / "s2ag-embeddings"
RELEASE = Path(__file__).parent / "fixtures" / "s2ag"  # its papers: 13756489, 7961699, 52
FIRST = '{"corpusid":13756489,"model":"specter_v2","vector":"[0.5, 0.25]"}'


def test_a_shard_in_the_real_format_gives_one_float32_vector_per_corpus_id(tmp_path):
    rows = list(paper_vectors(shards(EMBEDDINGS)))
    assert [r.paper_id for r in rows] == ["13756489", "7961699", "52", "102072882"]
    assert all(r.vector.dtype == np.float32 and r.vector.shape == (8,) for r in rows)
    assert rows[0].vector[:2].tolist() == pytest.approx([0.02843531, 0.36623266])
    gz = tmp_path / "embeddings-specter_v2" / "part0.jsonl.gz"  # as the Datasets API ships it
    gz.parent.mkdir()
    gz.write_bytes(gzip.compress((EMBEDDINGS / "embeddings-specter_v2" / "part0.jsonl").read_bytes()))
    assert [r.paper_id for r in paper_vectors(shards(tmp_path), {"52", "7961699"}.__contains__)] == ["7961699", "52"]


@pytest.mark.parametrize(
    "line, where",
    [
        ('{"model":"specter_v2","vector":"[1.0, 2.0]"}', "field 'corpusid' is missing"),
        ('{"corpusid":"x1","model":"specter_v2","vector":"[1.0, 2.0]"}', "field 'corpusid' expected an integer"),
        ('{"corpusid":7,"model":"specter_v1","vector":"[1.0, 2.0]"}', "field 'model' expected 'specter_v2'"),
        (
            '{"corpusid":7,"model":"specter_v2","vector":"[1.0, 2.0, 3.0]"}',
            "field 'vector' 3 numbers, but the vectors before had 2",
        ),
        (
            '{"corpusid":7,"model":"specter_v2","vector":"[1.0, NaN]"}',
            "field 'vector' expected a non-empty list of finite",
        ),
        ('{"corpusid":7,"model":"specter_v2","vector":"[1.0, \\"a\\"]"}', "field 'vector' expected a list of numbers"),
        ('{"corpusid":7,"model":"specter_v2","vector":"[1.0, 2.0"}', "field 'vector' expected a list of numbers"),
        ('{"corpusid":7,"model":"specter_v2","vector":null}', "field 'vector' is missing"),
        ('{"corpusid":13756489,"model":"specter_v2","vector":"[1.0, 2.0]"}', "field 'corpusid' 13756489 occurs twice"),
        ('{"corpusid":7,"model":"specter_v2",', "malformed JSON"),
    ],
)
def test_a_bad_line_stops_reading_with_its_file_line_and_field(line, where, tmp_path):
    shard = tmp_path / "part0.jsonl"
    shard.write_text(f"{FIRST}\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError) as refused:
        list(paper_vectors([shard]))
    assert str(refused.value).startswith(f"{shard}:2:")
    assert where in str(refused.value) and "\n" not in str(refused.value)


def test_loaded_into_the_specter2_index_keyed_by_graph_ids_and_queries_need_specter2(
    store, server_config, server_env, tmp_path
):
    """Only the graph's papers are indexed, under their graph ids; a query needs SPECTER2 with
    its proximity adapter, which is not here: one line says so, no traceback."""
    from citegraph.cli.app import indexes_dir
    from citegraph.retrieval.dense.ann import AnnIndex
    from citegraph.retrieval.spec import Dense

    ingest(store, get("s2ag"), [RELEASE], IngestOptions())
    done = citegraph_ok("index", "dense", "--from-s2ag", str(EMBEDDINGS), "--no-progress", env=server_env)
    assert "specter2: 3 S2AG vectors (8-d)" in done.stdout
    folder = indexes_dir(server_config) / Dense("specter2").folder
    assert json.loads((folder / "dense.json").read_text(encoding="utf-8"))["encoder"] == "specter2"
    index = AnnIndex.load(folder)
    assert (sorted(index.ids), index.metric) == (["13756489", "52", "7961699"], "l2")
    rows = {r.paper_id: r.vector for r in paper_vectors(shards(EMBEDDINGS))}
    assert [h.id for h in index.search(rows["13756489"], 2)[0]] == ["13756489", "7961699"]
    again = citegraph_ok("index", "dense", "--from-s2ag", str(EMBEDDINGS), "--no-progress", env=server_env)
    assert again.stdout == done.stdout

    asked = citegraph("search", "attention", "--with", "specter2", env=server_env)
    assert asked.returncode != 0
    message = asked.stderr.strip()
    assert "specter2" in message and "Traceback" not in message and len(message.splitlines()) == 1

    bad = tmp_path / "bad" / "part0.jsonl"
    bad.parent.mkdir()
    shutil.copy(EMBEDDINGS / "embeddings-specter_v2" / "part0.jsonl", bad)
    with open(bad, "a", encoding="utf-8") as f:
        f.write('{"corpusid":9,"model":"specter_v2","vector":"[1.0]"}\n')
    refused = citegraph("index", "dense", "--from-s2ag", str(bad.parent), "--no-progress", env=server_env)
    assert refused.returncode != 0
    assert refused.stderr.strip().endswith(f"{bad}:5: field 'vector' 1 numbers, but the vectors before had 8")
