"""The graph's citing sentences kept on disk under the graph's state (KeptSentences): read
from the copy while the graph is what it was, read from the graph again once it changed —
on the session's ArcadeDB server, with real ScisummNet folders (tests/fixtures/scisummnet)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from neo4j.exceptions import DriverError

from citegraph.graph import open_store
from citegraph.ingest import formats, ingest
from citegraph.retrieval.citing_sentences import CitingSentences, KeptSentences

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "scisummnet"
QUERY = "word sense disambiguation with WordNet"


def steady_state(server) -> str:
    """The database's state once no file has been written for ArcadeServer's QUIET seconds."""
    deadline = time.monotonic() + 30
    while (key := server.database_state()) is None:
        assert time.monotonic() < deadline, "the database's files kept changing"
        time.sleep(0.2)
    return key


def assert_same(kept: CitingSentences, read: CitingSentences) -> None:
    assert kept.texts == read.texts
    assert list(kept.citing_ids) == list(read.citing_ids) and list(kept.cited_ids) == list(read.cited_ids)
    assert np.array_equal(kept.citing, read.citing) and np.array_equal(kept.cited, read.cited)
    assert np.array_equal(kept.years, read.years, equal_nan=True)
    assert kept.counts.vocabulary == read.counts.vocabulary
    assert np.array_equal(kept.counts.lengths, read.counts.lengths)
    assert (kept.counts.by_term() != read.counts.by_term()).nnz == 0
    for view in ({}, {"hidden": read.citing_ids[0]}, {"as_of": 2005}):
        assert kept.search(QUERY, 10, **view) == read.search(QUERY, 10, **view)


@pytest.fixture
def closed(server_config):
    """A store whose driver is closed: any statement run on it fails (DriverError)."""
    store = open_store(server_config)
    store.close()
    return store


def test_the_copy_is_the_graphs_sentences_until_the_graph_changes(store, arcade_server, closed, tmp_path):
    ingest(store, formats.get("scisummnet"), [FIXTURES])
    key = steady_state(arcade_server)
    read = CitingSentences.load(store)
    assert read is not None and len(read) > 20
    kept = KeptSentences(tmp_path / "cache" / "citing-sentences.npz", arcade_server.database_state)

    assert_same(kept.load(store), read)  # read from the graph, and kept
    assert kept.path.is_file() and not list(kept.path.parent.glob("*.partial"))
    assert_same(kept.load(closed), read)  # from the copy: the graph is not asked
    assert steady_state(arcade_server) == key  # reading changed nothing

    cited = str(read.cited_ids[0])
    added = {"id": "kept-test", "title": "A citing paper", "year": 2009,
             "references": [{"id": cited, "contexts": ["As in [CIT], senses come from WordNet glosses."]}]}  # fmt: skip
    (tmp_path / "added.jsonl").write_text(json.dumps(added) + "\n", encoding="utf-8")
    ingest(store, formats.get("jsonl"), [tmp_path / "added.jsonl"])
    assert steady_state(arcade_server) != key
    with pytest.raises(DriverError):  # the copy is of the earlier state: the graph is asked again
        kept.load(closed)
    after = kept.load(store)
    assert after is not None and len(after) == len(read) + 1
    assert "As in [CIT], senses come from WordNet glosses." in after.texts
    assert_same(kept.load(closed), after)  # and the new state's copy replaced it


def test_a_graph_without_sentences_is_kept_as_such(store, arcade_server, closed, tmp_path):
    papers = [{"id": "a", "title": "Citing", "year": 2010, "references": [{"id": "b"}]}, {"id": "b", "title": "Cited"}]
    (tmp_path / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    ingest(store, formats.get("jsonl"), [tmp_path / "papers.jsonl"])
    assert CitingSentences.load(store) is None
    steady_state(arcade_server)
    kept = KeptSentences(tmp_path / "citing-sentences.npz", arcade_server.database_state)
    assert kept.load(store) is None
    assert kept.load(closed) is None  # from the copy


def test_no_state_no_copy(store, tmp_path):
    """A graph with no state to key on (a server given by --uri, a write under way) is read, and nothing kept."""
    ingest(store, formats.get("scisummnet"), [FIXTURES])
    kept = KeptSentences(tmp_path / "citing-sentences.npz", lambda: None)
    assert_same(kept.load(store), CitingSentences.load(store))
    assert not kept.path.exists()


@pytest.mark.parametrize(
    "damage",
    [b"", b"PK\x03\x04 cut short", b"not a copy at all", "key holds an object"],
    ids=["empty", "truncated zip", "not a zip", "pickled"],
)
def test_a_damaged_copy_is_read_from_the_graph_again_and_replaced(store, damage, tmp_path):
    ingest(store, formats.get("scisummnet"), [FIXTURES])
    kept = KeptSentences(tmp_path / "citing-sentences.npz", lambda: "state")
    if isinstance(damage, bytes):
        kept.path.write_bytes(damage)
    else:
        np.savez(kept.path, key=np.asarray([{"a": 1}], dtype=object))
    read = CitingSentences.load(store)
    assert_same(kept.load(store), read)
    assert_same(KeptSentences(kept.path, lambda: "state").load(store), read)
    with np.load(kept.path, allow_pickle=False) as arrays:
        assert str(arrays["key"]) == "state"
