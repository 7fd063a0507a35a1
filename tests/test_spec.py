"""The retriever grammar: what each spelling parses to, the canonical spelling, and bad specs.

The resolvers (open a prebuilt index, build over documents) are tested on real indexes in
test_retrieval.py; CSFCube's and the local prefetcher's use of them in their own tests.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.errors import CitegraphError
from citegraph.retrieval.dense.encoder_specs import ENCODERS
from citegraph.retrieval.spec import BM25, Dense, Fusion, parse_spec, parse_specs

PARSED = {
    "bm25": BM25(),
    "bm25:multifield": BM25(multifield=True),
    "bm25:bm25s": BM25(backend="bm25s"),
    "bm25:multifield:lucene": BM25(multifield=True, backend="lucene"),
    "minilm": Dense("minilm"),
    "aspire-cs": Dense("aspire-cs"),
    "minilm:maxsim": Dense("minilm", maxsim=True),
    "hf:allenai/specter": Dense("hf:allenai/specter"),
    "hf:/models/x:maxsim": Dense("hf:/models/x", maxsim=True),
    "rrf(bm25,minilm)": Fusion((BM25(), Dense("minilm"))),
    "rrf(bm25,rrf(minilm,bm25:multifield),specter:maxsim)": Fusion(
        (BM25(), Fusion((Dense("minilm"), BM25(multifield=True))), Dense("specter", maxsim=True))
    ),
    "wsum(0.7*bm25,0.3*minilm)": Fusion((BM25(), Dense("minilm")), (0.7, 0.3)),
    "wsum(1*bm25,2*rrf(minilm,scincl))": Fusion((BM25(), Fusion((Dense("minilm"), Dense("scincl")))), (1.0, 2.0)),
}


@pytest.mark.parametrize("text", PARSED)
def test_each_spelling_parses_and_round_trips(text):
    spec = parse_spec(text)
    assert spec == PARSED[text]
    assert str(spec) == text and parse_spec(str(spec)) == spec


def test_other_spellings_reach_the_canonical_one():
    assert str(parse_spec(" bm25:bm25s:multifield ")) == "bm25:multifield:bm25s"
    assert str(parse_spec("rrf( bm25 , minilm )")) == "rrf(bm25,minilm)"
    assert str(parse_spec("wsum(0.50*bm25,.5*minilm)")) == "wsum(0.5*bm25,0.5*minilm)"
    assert parse_spec(BM25()) == BM25()  # a spec passes through


def test_lists_split_at_top_level_commas():
    assert parse_specs("bm25,rrf(bm25,minilm)") == [BM25(), Fusion((BM25(), Dense("minilm")))]
    assert parse_specs("") == [] and parse_specs("bm25,,minilm,") == [BM25(), Dense("minilm")]
    assert parse_specs(["bm25", Dense("minilm")]) == [BM25(), Dense("minilm")]


@pytest.mark.parametrize(
    "text, reason",
    [
        ("bm25:facet", "bm25 takes :multifield and one of :lucene, :bm25s"),
        ("bm25:lucene:bm25s", "bm25 takes"),
        ("bm25-multifield", "unknown retriever 'bm25-multifield'"),
        ("rrf:bm25+minilm", "unknown retriever"),
        ("minilm:facet", "unknown retriever 'minilm:facet'"),
        ("nomodel", "unknown retriever 'nomodel'"),
        ("hf:", "hf: needs a hub id or a model folder"),
        ("rrf(bm25)", "rrf(…) fuses two or more retrievers"),
        ("rrf(bm25,)", "fuses two or more"),
        ("rrf(bm25,minilm", "unbalanced parentheses"),
        ("wsum(bm25,minilm)", "members are <weight>*<spec>"),
        ("rrf(bm25,nomodel)", "unknown retriever 'nomodel'"),
        ("bm25 minilm", "not a retriever name"),
    ],
)
def test_bad_specs_say_why_and_list_the_valid_forms(text, reason):
    with pytest.raises(CitegraphError) as error:
        parse_specs(text)
    message = str(error.value)
    assert reason in message and "\n" not in message
    assert "bm25[:multifield][:lucene|:bm25s]" in message and "rrf(" in message and "hf:<hub id or folder>" in message
    assert all(name in message for name in ENCODERS)


def test_the_cli_rejects_a_bad_spec_in_one_line_before_any_work():
    result = CliRunner().invoke(main, ["search", "anything", "--with", "bm25,rrf(bm25)"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "Invalid value for '--with': retriever 'rrf(bm25)': rrf(…) fuses two or more retrievers; valid: " in (
        " ".join(result.output.split())
    )
    local = CliRunner().invoke(main, ["evaluate", "local", "--out", "unused", "--prefetch", "bm25,minilm"])
    assert local.exit_code == 2 and "expected one retriever, got 2" in local.output
