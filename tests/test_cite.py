"""`citegraph cite` on the real ACL-200 graph with a real BM25 index (the ``acl`` fixture:
conftest.py): a LaTeX draft with three empty citations and a .bib, through the CLI, POST /cite
and the MCP tool (one code path: the same ids), a reference never suggested where it is cited,
each bad input's one line, and a sentence-transformers model that re-ranks."""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from citegraph.library.draft import context_slot, read_draft
from citegraph.recommend.cite import CiteModel, cite

from conftest import citegraph

DRAFT = r"""\documentclass{article}
\title{Dependency syntax for statistical machine translation}
\begin{document}
\maketitle
\begin{abstract}
We add dependency parsing to phrase-based statistical machine translation.
\end{abstract}
\section{Introduction}
Phrase-based statistical machine translation \cite{koehn03} is tuned with minimum error rate training \cite{}.
Its output is scored against reference translations \cite{vaswani17}.

Dependency parsers are trained with online large-margin learning \citep{mcdonald05}.
Non-projective dependency parsing with spanning tree algorithms \citep{} handles free word order.

Hierarchical phrase-based translation with synchronous grammars \cite{?} extends the phrase model.
\end{document}
"""
BIB = """@inproceedings{koehn03, title = {Statistical Phrase-Based Translation},
  author = {Koehn, Philipp and Och, Franz Josef and Marcu, Daniel}, year = {2003}}
@inproceedings{mcdonald05, title = {Online Large-Margin Training of Dependency Parsers},
  author = {McDonald, Ryan and Crammer, Koby and Pereira, Fernando}, year = {2005}}
@inproceedings{vaswani17, title = {Attention Is All You Need}, author = {Vaswani, Ashish}, year = {2017}}
"""
REFERENCES = {"N03-1017", "P05-1012"}  # koehn03, mcdonald05 in the graph; vaswani17 is not
SLOTS = [(9, 103, "\\cite"), (13, 65, "\\citep"), (15, 65, "\\cite")]  # line, column, command


@pytest.fixture
def draft_files(tmp_path):
    (tmp_path / "paper.tex").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    return tmp_path / "paper.tex", tmp_path / "refs.bib"


@pytest.fixture(scope="module")
def model_folder(tiny_bert, tmp_path_factory):
    """The tiny BERT as a sentence-transformers folder (mean pooling, normalised)."""
    folder = tmp_path_factory.mktemp("cite-model") / "model"
    shutil.copytree(tiny_bert, folder)
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 32, "pooling_mode_mean_tokens": True})
    )
    (folder / "modules.json").write_text(
        json.dumps(
            [
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
            ]
        )
    )
    return folder


def _ids(slot) -> list[str]:
    """A slot's suggested ids, from JSON or from the Python path."""
    return [s["id"] for s in slot["suggestions"]] if isinstance(slot, dict) else [s.id for s in slot.suggestions]


def test_a_latex_draft_gets_ranked_explained_suggestions_per_slot(acl, server_env, draft_files):
    draft, bib = draft_files
    done = citegraph("cite", "--draft", str(draft), "--bib", str(bib), "-k", "5", "--format", "json", env=server_env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [(s["line"], s["column"], s["command"]) for s in out["slots"]] == SLOTS
    assert out["slots"][0]["sentence"] == (
        "Phrase-based statistical machine translation [REF] is tuned with minimum error rate training [CIT]."
    )
    assert out["missing"] == [f"{bib}:5 (vaswani17)"]  # listed, not fatal
    assert {m["paper"] for m in out["references"]} == {*REFERENCES, None}
    assert "no --model" in out["ranking"]
    for slot in out["slots"]:
        assert len(slot["suggestions"]) == 5
        assert all(s["explanation"] and s["first_stage"] >= 1 and s["model"] is None for s in slot["suggestions"])
    expected = {0: "P03-1021", 1: "E06-1011", 2: "P05-1033"}  # MERT; dependency parsing; Hiero
    for at, paper in expected.items():
        assert paper in _ids(out["slots"][at]), (at, _ids(out["slots"][at]))
    # the same as the Python path
    python = cite(acl, read_draft(draft, bib=bib), k=5)
    assert [_ids(s) for s in out["slots"]] == [_ids(s) for s in python.slots]


def test_a_reference_is_never_suggested_where_it_is_cited(acl, draft_files):
    draft, bib = draft_files
    found = cite(acl, read_draft(draft, bib=bib), k=50)
    assert [s.slot.cited_in_sentence for s in found.slots] == [("koehn03",), (), ()]
    assert "N03-1017" not in _ids(found.slots[0])
    # the first slot's sentence alone, without the bibliography, suggests the paper it cites
    alone = cite(
        acl,
        context_slot("Phrase-based statistical machine translation is tuned with minimum error rate training [CIT]."),
        k=50,
    )
    assert "N03-1017" in _ids(alone.slots[0])


GRAPH_SIDE = {"cited_by_references", "coupling", "cocitation"}  # signals of the references' neighbourhood
PER_SLOT = r"""\begin{document}
Phrase-based statistical machine translation \cite{koehn03,?} learns phrase tables from word alignments.

Statistical phrase-based translation \cite{} learns phrase tables from word alignments.
\end{document}
"""


def test_a_reference_is_blocked_only_at_the_slot_that_cites_it(acl, tmp_path):
    """koehn03 (N03-1017) is cited at slot 1 (``\\cite{koehn03,?}``): never suggested there;
    slot 2 asks the same question without citing it, and gets it; it seeds both slots' graph side."""
    (tmp_path / "paper.tex").write_text(PER_SLOT, encoding="utf-8")
    read = read_draft(tmp_path / "paper.tex", bib=draft_bib(tmp_path))
    assert [s.cited_in_sentence for s in read.slots] == [("koehn03",), ()]
    first, second = cite(acl, read, k=10).slots
    assert "N03-1017" not in _ids(first)
    assert "N03-1017" in _ids(second)
    for slot in (first, second):  # every reference seeds the graph side of every slot
        assert any(s.name in GRAPH_SIDE for hit in slot.suggestions for s in hit.signals), slot


def draft_bib(folder):
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    return folder / "refs.bib"


def test_a_context_from_the_cli_with_explanations(acl, server_env):
    context = "Non-projective dependency parsing with spanning tree algorithms [CIT] handles free word order."
    done = citegraph("cite", "--context", context, "-k", "3", "--explain", env=server_env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ranking: first stage and graph features only")
    assert "slot 1 at context:1:" in done.stdout
    expected = cite(acl, context_slot(context), k=3).slots[0].suggestions
    ranks = [line.split()[1] for line in lines if line.lstrip().startswith(("1. ", "2. ", "3. "))]
    assert ranks == [s.id for s in expected]
    assert "· first stage rank 1" in done.stdout and "bm25 rank" in done.stdout


def test_http_and_mcp_answer_as_the_python_path(acl, draft_files):
    from fastapi.testclient import TestClient
    from mcp import Client

    from citegraph.service.http import create_app
    from citegraph.service.mcp import create_server

    draft, bib = draft_files
    python = [_ids(s) for s in cite(acl, read_draft(draft, bib=bib), k=5).slots]
    body = {"draft": DRAFT, "bib": BIB, "k": 5}
    with TestClient(create_app(acl, hosts=("testserver",))) as client:
        answer = client.post("/cite", json=body)
        assert answer.status_code == 200, answer.text
        bad = [
            client.post("/cite", json=b)
            for b in (
                {"context": "x" * 5001},
                {"draft": "No slot here."},
                {"draft": DRAFT, "bib": "@article{broken, title={"},
                {"context": "a [CIT]", "draft": DRAFT},
                {"draft": "\\input{/etc/hostname} \\cite{}"},
            )
        ]
    got = answer.json()
    assert [_ids(s) for s in got["slots"]] == python
    assert [s["where"] for s in got["slots"]] == [f"draft.tex:{line}:{column}" for line, column, _ in SLOTS]
    assert got["missing"] == ["bib.bib:5 (vaswani17)"]
    assert [b.status_code for b in bad] == [422] * 5, [b.text for b in bad]
    details = [b.json()["detail"] for b in bad]
    assert "context" in details[0] and "5000" in details[0]
    assert details[1].startswith("draft.tex: no citation slot")
    assert details[2].startswith("bib.bib:1")
    assert "not both" in details[3]
    assert "names a file (\\input)" in details[4]

    async def session():
        async with Client(create_server(acl, draft.parent / "indexes")) as client:
            return await client.call_tool("cite", {"draft": DRAFT, "bib": BIB, "k": 5})

    result = asyncio.run(session())
    assert not result.is_error, result.content
    content = result.structured_content
    assert [_ids(s) for s in content["slots"]] == python


@pytest.mark.parametrize(
    "args, message",
    [
        (["--draft", "{dir}/empty.tex"], "{dir}/empty.tex: no citation slot"),
        (["--draft", "{dir}/paper.tex", "--bib", "{dir}/missing.bib"], "{dir}/missing.bib: no such bibliography file"),
        (["--draft", "{dir}/paper.tex", "--bib", "{dir}/broken.bib"], "{dir}/broken.bib:1"),
        (["--context", "x" * 5001], "Invalid value for '--context': String should have at most 5000 characters"),
        (
            ["--context", "parsing [CIT]", "--model", "{dir}"],
            (
                "--model {dir}: not a sentence-transformers model folder "
                "(no config.json, no weights (model.safetensors or pytorch_model.bin), no modules.json)"
            ),
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(acl, server_env, draft_files, args, message):
    folder = draft_files[0].parent
    (folder / "empty.tex").write_text("\\begin{document}Nothing to cite.\\end{document}\n")
    (folder / "broken.bib").write_text("@article{broken, title={\n")
    done = citegraph("cite", *(a.format(dir=folder) for a in args), env=server_env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("Error: " + message.format(dir=folder)), done.stderr
    assert "Traceback" not in done.stderr


def test_a_model_reranks_and_explains_its_score(acl, server_env, model_folder, tmp_path, draft_files):
    draft, bib = draft_files
    read = read_draft(draft, bib=bib)
    plain = cite(acl, read, k=10)
    model = CiteModel(model_folder, acl, tmp_path / "embeddings")
    reranked = cite(acl, read, k=10, model=model)
    assert [_ids(s) for s in reranked.slots] != [_ids(s) for s in plain.slots]
    assert all(s.model is not None for slot in reranked.slots for s in slot.suggestions)
    assert model.pool.cache.encoded > 0
    again = CiteModel(model_folder, acl, tmp_path / "embeddings")
    assert [_ids(s) for s in cite(acl, read, k=10, model=again).slots] == [_ids(s) for s in reranked.slots]
    assert again.pool.cache.encoded == 0  # candidates are encoded once, then read from the cache
    done = citegraph(
        "cite",
        "--draft",
        str(draft),
        "--bib",
        str(bib),
        "-k",
        "3",
        "--explain",
        "--model",
        str(model_folder),
        env=server_env,
    )
    assert done.returncode == 0, done.stderr
    assert f"ranking: first stage fused with the model {model_folder}" in done.stdout
    assert "· model cosine " in done.stdout


def test_a_drafts_slots_are_encoded_in_one_run_and_answered_as_each_alone(
    acl, model_folder, tmp_path, draft_files, monkeypatch
):
    """With a model, a draft's candidates not yet cached are encoded in one run for all its
    slots (then the slots' texts in another), not slot by slot; each slot's answer is the one
    it gets asked alone."""
    draft, bib = draft_files
    read = read_draft(draft, bib=bib)
    model = CiteModel(model_folder, acl, tmp_path / "embeddings")
    encoder, runs = model.pool.encoder, []
    encode = encoder.encode
    monkeypatch.setattr(encoder, "encode", lambda docs, *rest: runs.append(len(docs)) or encode(docs, *rest))
    whole = cite(acl, read, k=10, model=model)
    assert len(runs) == 2 and runs[0] == model.pool.cache.encoded > 10 and runs[1] == len(read.slots) == 3
    alone = CiteModel(model_folder, acl, tmp_path / "alone")
    for slot, answered in zip(read.slots, whole.slots, strict=True):
        [one] = cite(acl, replace(read, slots=(slot,)), k=10, model=alone).slots
        assert [s.id for s in one.suggestions] == [s.id for s in answered.suggestions]
        assert [s.model for s in one.suggestions] == pytest.approx([s.model for s in answered.suggestions], abs=1e-5)


def test_cite_encode_caches_every_paper_so_a_slot_encodes_only_its_text(acl, server_env, model_folder, draft_files):
    """``cite encode`` puts every paper of the graph in the model's embedding cache (once: a
    second run encodes none); ``cite --model`` then encodes no candidate."""
    from citegraph.retrieval.corpus import documents

    papers = sum(1 for _ in documents(acl.store))
    first = citegraph("cite", "encode", "--model", str(model_folder), env=server_env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(f"{papers:,} papers for {model_folder}: ")
    again = citegraph("cite", "encode", "--model", str(model_folder), env=server_env)
    assert f": 0 encoded, {papers:,} already cached" in again.stdout
    model = CiteModel(model_folder, acl, Path(server_env["CITEGRAPH_DATA_DIR"]) / "embeddings")
    draft, bib = draft_files
    answered = cite(acl, read_draft(draft, bib=bib), k=10, model=model)
    assert all(s.model is not None for slot in answered.slots for s in slot.suggestions)
    assert model.pool.cache.encoded == 0


def test_the_fusion_weights_are_read_from_the_models_card(acl, model_folder, tmp_path, draft_files):
    """`citegraph cite tune --write` records the tuned weights in the card; `cite` reads them."""
    from citegraph.errors import CitegraphError
    from citegraph.recommend.cite import Fusion
    from citegraph.retrieval.dense.model_card import record_card

    folder = tmp_path / "model"
    shutil.copytree(model_folder, folder)
    with pytest.raises(CitegraphError, match=r"no citegraph.json \(not a model folder citegraph wrote\)"):
        record_card(folder, "cite", {})
    assert Fusion.of(folder) == Fusion(0.5, 1.0)  # no card: the defaults
    (folder / "citegraph.json").write_text(json.dumps({"base_model": "tiny"}), encoding="utf-8")
    record_card(folder, "cite", {"fusion": {"draft": 0.0, "model": 0.0}, "tuned_by": "a test"})
    card = json.loads((folder / "citegraph.json").read_text(encoding="utf-8"))
    assert card == {"base_model": "tiny", "cite": {"fusion": {"draft": 0.0, "model": 0.0}, "tuned_by": "a test"}}
    read = read_draft(*draft_files[:1], bib=draft_files[1])
    model = CiteModel(folder, acl, tmp_path / "embeddings")
    assert model.fusion == Fusion(0.0, 0.0)
    weighed = cite(acl, read, k=10, model=model)
    assert "(weights: model 0, draft 0)" in weighed.ranking
    # a model weighing nothing leaves the first stage's order (without the draft's field) as it is
    assert [_ids(s) for s in weighed.slots] == [_ids(s) for s in cite(acl, read, k=10, fusion=Fusion(0.0, 0.0)).slots]
    assert [_ids(s) for s in weighed.slots] != [_ids(s) for s in cite(acl, read, k=10).slots]


PARAGRAPH = r"""\documentclass{article}
\title{Tagging and parsing English with discriminative models}
\begin{document}
\begin{abstract}
We tag and parse English text with statistical models trained online.
\end{abstract}
\section{Introduction}
Statistical part-of-speech taggers based on second-order Markov models are fast and accurate \cite{}.
Our parser is trained with the averaged perceptron and large-margin online learning for dependency parsing \citep{}.

Maximum entropy taggers \cite{ratnaparkhi96} and dependency networks \cite{toutanova03} tag with rich features.
\end{document}
"""
PARAGRAPH_BIB = """@inproceedings{ratnaparkhi96, title = {A Maximum Entropy Model for Part-Of-Speech Tagging},
  author = {Ratnaparkhi, Adwait}, year = {1996}}
@inproceedings{toutanova03, title = {Feature-Rich Part-of-Speech Tagging with a Cyclic Dependency Network},
  author = {Toutanova, Kristina and Klein, Dan and Manning, Christopher and Singer, Yoram}, year = {2003}}
"""


def _rank(ids: list[str], paper: str) -> int:
    return ids.index(paper) if paper in ids else len(ids)


def test_two_sentences_of_a_paragraph_get_each_their_own_answer(acl, tmp_path):
    """Issue 41: a tagging sentence then a parsing sentence, side by side in one paragraph (the
    default window of one neighbour), with references in the graph: the tagger (A00-1031, TnT)
    comes before the parser (P05-1012) at the first slot, the parser before the tagger at the
    second — without a model."""
    (tmp_path / "paper.tex").write_text(PARAGRAPH, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(PARAGRAPH_BIB, encoding="utf-8")
    found = cite(acl, read_draft(tmp_path / "paper.tex", bib=tmp_path / "refs.bib"), k=20)
    assert {m.paper for m in found.references} == {"W96-0213", "N03-1033"}
    tagging, parsing = (_ids(s) for s in found.slots)
    assert _rank(tagging, "A00-1031") < _rank(tagging, "P05-1012"), tagging
    assert _rank(parsing, "P05-1012") < _rank(parsing, "A00-1031"), parsing
    assert tagging[:5] != parsing[:5]


def test_two_slots_of_one_sentence_get_different_lists(acl):
    """Each slot of "We report BLEU [CIT] and test significance with paired bootstrap
    resampling [CIT]" asks for its own clause: different lists, the significance tests
    (W04-3250) first at the second."""
    found = cite(
        acl, context_slot("We report BLEU [CIT] and test significance with paired bootstrap resampling [CIT]."), k=50
    )
    bleu, significance = (_ids(s) for s in found.slots)
    assert bleu[:5] != significance[:5]
    assert significance[0] == "W04-3250", significance


def test_the_references_neighbourhood_is_gathered_once_per_draft(acl, draft_files, monkeypatch):
    """Three slots, one ``recommend/neighbourhood`` statement: the references' neighbourhood is
    the same for every slot of a draft; each slot still blocks only the references it cites."""
    draft, bib = draft_files
    read = read_draft(draft, bib=bib)
    statements: list[str] = []
    plain = acl.store.plain

    def counted(name, /, **params):
        statements.append(name)
        return plain(name, **params)

    monkeypatch.setattr(acl.store, "plain", counted)
    found = cite(acl, read, k=10)
    assert len(found.slots) == 3
    assert statements.count("recommend/neighbourhood") == 1, statements
    assert "N03-1017" not in _ids(found.slots[0])  # cited at slot 1: blocked there, though gathered once


def test_why_says_a_paper_s_fate_at_each_slot_the_same_on_every_door(acl, server_env, draft_files):
    """`cite --why` (issue 41): at each slot, a paper's rank there or the stage that dropped it —
    koehn03 (N03-1017) is blocked where its sentence cites it and ranked where it does not;
    MERT (P03-1021) is suggested at its slot and not at the others — the same on the command
    line, over HTTP and through MCP."""
    from fastapi.testclient import TestClient
    from mcp import Client

    from citegraph.service.http import create_app
    from citegraph.service.mcp import create_server

    draft, bib = draft_files
    why = ["N03-1017", "P03-1021"]
    flags = [f for pid in why for f in ("--why", pid)]
    done = citegraph(
        "cite", "--draft", str(draft), "--bib", str(bib), "-k", "5", *flags, "--format", "json", env=server_env
    )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    with TestClient(create_app(acl, hosts=("testserver",))) as client:
        sent = client.post("/cite", json={"draft": DRAFT, "bib": BIB, "k": 5, "why": why}).json()

    async def session():
        async with Client(create_server(acl, draft.parent / "indexes")) as client:
            return await client.call_tool("cite", {"draft": DRAFT, "bib": BIB, "k": 5, "why": why})

    tool = asyncio.run(session()).structured_content
    fates = [slot["why"] for slot in read["slots"]]
    assert fates == [slot["why"] for slot in sent["slots"]] == [slot["why"] for slot in tool["slots"]]
    assert [[w["candidate"] for w in slot] for slot in fates] == [why] * 3
    koehn, mert = zip(*fates, strict=True)
    assert koehn[0]["stage"] == "blocked" and koehn[0]["why_not"] == (
        "not a candidate — blocked: already cited (one of your references)"
    )
    assert all(k["candidate_found"] for k in koehn[1:])  # cited in another sentence: suggestible there
    assert mert[0]["stage"] == "recommended" and mert[0]["why_not"] is None
    assert _ids(read["slots"][0])[mert[0]["rank"] - 1] == "P03-1021"  # its rank is the slot's order
    assert [m["stage"] for m in mert[1:]] != ["recommended", "recommended"]
    for m in mert:
        assert m["features"] if m["candidate_found"] else m["why_not"].startswith("not a candidate")
    shown = citegraph("cite", "--draft", str(draft), "--bib", str(bib), "-k", "3", *flags, env=server_env).stdout
    assert shown.count("N03-1017 Statistical Phrase-Based Translation: not a candidate — blocked") == 1
