"""Citation contextualisation (Cohan & Goharian 2017): the models' formulas on hand examples,
the CL-SciSumm reader on real topics, the evaluation on a tiny gold set whose scores are
worked out by hand, and the graph path and CLI on a real ArcadeDB server."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.contextualise import lm, on_graph
from citegraph.contextualise.annotation import Repairs
from citegraph.contextualise.clscisumm import clean, read_topic, read_topics
from citegraph.contextualise.evaluation import CLSciSumm
from citegraph.contextualise.measures import char_scores
from citegraph.contextualise.models import get, query_terms, ranking, strip_citations
from citegraph.contextualise.ontology import Ontology, bundled_ccs, read_ontology
from citegraph.contextualise.word_vectors import WordVectors, centred, noise_threshold, phi, relatedness
from citegraph.errors import CitegraphError, InputError
from citegraph.evaluation.harness import run
from citegraph.ingest import formats, ingest
from citegraph.ingest.sources.taxonomy import BUNDLED

from conftest import shared, write_jsonl

pytest.importorskip("gensim")
pytest.importorskip("rouge_score")

CLSCISUMM = "samples/clscisumm/training"


# -- the models on hand examples ---------------------------------------------------------
def test_dirichlet_formula_on_a_hand_example():
    # collection counts a:3 b:1 c:2 → add-one over 3 terms + 1 unseen: p(a)=4/10, p(unseen)=1/10
    background = lm.Background(Counter({"a": 3, "b": 1, "c": 2}), 6)
    sentences = lm.SentenceSet([["a", "b", "a"], ["c"]])
    x = lm.prepare(["a", "d", "a"], sentences, background)  # "a" twice: counted twice
    mu = 10
    expected = [
        2 * math.log((2 + mu * 0.4) / (3 + mu)) + math.log((0 + mu * 0.1) / (3 + mu)),
        2 * math.log((0 + mu * 0.4) / (1 + mu)) + math.log((0 + mu * 0.1) / (1 + mu)),
    ]
    assert lm.dirichlet(x, mu) == pytest.approx(expected, abs=1e-12)
    assert list(ranking(lm.dirichlet(x, mu))) == [0, 1]


def test_phi_is_the_logit_and_tau_cuts_the_noise():
    assert phi(0.5) == pytest.approx(0.0)
    assert phi(0.8) == pytest.approx(math.log(4))
    assert phi(0.2) == pytest.approx(-math.log(4))
    # s = φ(cos) clipped to [0, 1] above τ, else 0: the logit damps 0.3 < cos ≤ 0.5 to nothing
    cos = np.array([0.25, 0.45, 0.6, 0.9])
    assert relatedness(cos, tau=0.3) == pytest.approx([0.0, 0.0, math.log(1.5), 1.0])
    assert relatedness(cos, tau=0.7) == pytest.approx([0.0, 0.0, 0.0, 1.0])

    rng = np.random.default_rng(1)
    isotropic = rng.standard_normal((2000, 100))
    isotropic /= np.linalg.norm(isotropic, axis=1, keepdims=True)
    # |cos| of random unit vectors in 100 dimensions: mean ≈ 0.080, sd ≈ 0.060
    assert 0.18 < noise_threshold(isotropic) < 0.23
    cone = isotropic * 0.2 + np.array([1.0] + [0.0] * 99)  # every word in one narrow cone
    cone /= np.linalg.norm(cone, axis=1, keepdims=True)
    assert noise_threshold(cone) > 0.95  # nothing would count as related …
    assert noise_threshold(centred(cone)) < 0.25  # … until the common direction is removed


def test_embedding_model_without_related_words_is_the_dirichlet_model():
    background = lm.Background(Counter({"car": 2, "automobil": 2, "bank": 2, "river": 2}), 8)
    sentences = lm.SentenceSet([["river", "bank"], ["automobil", "bank"]])
    orthogonal = WordVectors(["car", "automobil", "bank", "river"], np.eye(4))
    assert orthogonal.tau == 0.0
    x = lm.prepare(["car"], sentences, background, orthogonal)
    assert lm.semantic(x, 50) == pytest.approx(lm.dirichlet(x, 50))  # f_sem = f, Σ_w f_sem = |d|
    assert lm.dirichlet(x, 50)[0] == pytest.approx(lm.dirichlet(x, 50)[1])  # no term matches: a tie

    vectors = np.eye(4)
    vectors[1] = [0.95, 0.31, 0, 0]  # automobile ≈ car: cos 0.95
    related = WordVectors(["car", "automobil", "bank", "river"], vectors, {"tau": 0.5})
    x = lm.prepare(["car"], sentences, background, related)
    s = min(1.0, float(phi(0.95 / np.linalg.norm([0.95, 0.31]))))
    assert x.f_sem[:, 0] == pytest.approx([0.0, s])
    assert list(ranking(lm.semantic(x, 50))) == [1, 0]  # the sentence about automobiles answers "car"

    # WE+dmn: an ontology synonym counts γ; λ = 1 is WE, λ = 0 with γ = 0 is LMD
    ontology = Ontology.from_sets([["car", "automobile"]])
    x = lm.prepare(["car"], sentences, background, orthogonal, ontology)
    assert x.f_syn[:, 0] == pytest.approx([0.0, 1.0])
    assert lm.interpolated(x, 50, 1.0, 0.5) == pytest.approx(lm.semantic(x, 50))
    assert lm.interpolated(x, 50, 0.0, 0.0) == pytest.approx(lm.dirichlet(x, 50))
    assert list(ranking(lm.interpolated(x, 50, 0.0, 0.5))) == [1, 0]


def test_citation_markers_are_not_query_terms():
    text = "Tillmann and Ney (2000) and others [12, 14] prune the beam (Brown et al., 1993; Och 2003) [CIT]."
    assert strip_citations(text) == "and others prune the beam ."
    assert query_terms(text) == ["other", "prune", "beam"]


# -- the CL-SciSumm reader ------------------------------------------------------------------
def test_reader_on_a_real_topic():
    topic = read_topic(shared(CLSCISUMM) / "C02-1025")
    reference = topic.reference
    assert reference.id == "C02-1025"
    assert reference.sentences[0].sid == "0"
    assert reference.sentences[0].text == (
        "Named Entity Recognition: A Maximum Entropy Approach Using Global Information"
    )
    for s in reference.sentences:
        assert reference.text[s.start : s.end] == s.text
    first = topic.citances[0]
    assert (first.id, first.citing_id, first.gold, first.facets) == (
        "C02-1025:1",
        "C10-2104",
        ("63",),
        ("Method_Citation",),
    )
    assert first.text == (
        "In such cases, neither global features (Chieu and Ng, 2002) nor aggregated contexts "
        "(Chieu and Ng, 2003) can help."
    )
    assert reference.sentences[reference.position["63"]].text == first.reference_text
    assert all(sid in reference.position for c in topic.citances for sid in c.gold)
    # UTF-8 read as Windows-1252 in the annotation file is repaired
    riloff = {c.id: c.text for c in read_topic(shared(CLSCISUMM) / "N04-1038").citances}["N04-1038:14"]
    assert "Bean and Riloff’s (2004)" in riloff and "â€" not in riloff
    assert clean("Gime\u00c2\u00b4nez <b>x</b> &amp;") == "Gime\u00b4nez x &"


def _annotation(number, text, offsets, reference_article="A00-0001.txt") -> str:
    return (
        f"Citance Number: {number} | Reference Article:  {reference_article} | "
        f"Citing Article:  X0{number}-1000.txt | "
        f"Citation Marker Offset:  ['1'] | Citation Marker:  Smith, 2000 | Citation Offset:  ['1'] | "
        f'Citation Text:  <S sid ="1" ssid = "1">{text}</S> | Reference Offset:  {offsets} | '
        f'Reference Text:  <S sid ="1" ssid = "1">x</S> | Discourse Facet:  Method_Citation | Annotator:  T |'
    )


def _topic(root: Path, paper: str, sentences: list[str], citances: list[tuple[str, str]]) -> Path:
    folder = root / paper
    (folder / "Reference_XML").mkdir(parents=True)
    (folder / "annotation").mkdir()
    body = "\n".join(f'<S sid="{i}" ssid="{i}">{s}</S>' for i, s in enumerate(sentences, 1))
    (folder / "Reference_XML" / f"{paper}.xml").write_text(f"<PAPER>\n{body}\n</PAPER>\n", encoding="utf-8")
    lines = [_annotation(n, text, offsets, f"{paper}.txt") for n, (text, offsets) in enumerate(citances, 1)]
    (folder / "annotation" / f"{paper}.ann.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "offsets, field, reason, repaired",
    [
        ("['x']", "Reference Offset", "expected a list of sentence ids", "unreadable offset"),
        ("'1',,'2'", "Reference Offset", "expected a list of sentence ids", "unreadable offset"),
        (";1'", "Reference Offset", "has a stray ';' and a quote on one side only", "stray character"),
        ("['1','9']", "Reference Offset", "sentence id(s) 9 are not in", "unknown sentence"),
        ("[]", "Reference Offset", "names no sentence", "no gold"),
    ],
)
def test_reader_names_file_line_and_field_of_bad_annotations(tmp_path, offsets, field, reason, repaired):
    folder = _topic(tmp_path, "A00-0001", ["One.", "Two."], [("Fine text.", "['1']"), ("Bad one.", offsets)])
    with pytest.raises(InputError) as error:
        read_topic(folder, repairs=Repairs(strict=True))
    message = str(error.value)
    assert f"A00-0001.ann.txt:3: field '{field}'" in message and reason in message
    if repaired:  # read leniently, the defect is repaired and counted
        repairs = Repairs()
        read_topic(folder, repairs=repairs)
        assert repairs.counts() == {repaired: 1}


def test_reader_rejects_missing_files_and_fields(tmp_path):
    folder = _topic(tmp_path, "A00-0001", ["One."], [("Text.", "['1']")])
    annotation = folder / "annotation" / "A00-0001.ann.txt"
    annotation.write_text(
        annotation.read_text(encoding="utf-8").replace("Citation Text:", "Citation Txt:"), encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"A00-0001.ann.txt:1: field 'Citation Text' is missing"):
        read_topic(folder)
    (folder / "Reference_XML" / "A00-0001.xml").unlink()
    with pytest.raises(CitegraphError, match="expected one Reference_XML/\\*.xml, found 0"):
        read_topic(folder)
    with pytest.raises(CitegraphError, match="no CL-SciSumm topic"):
        read_topics(tmp_path / "A00-0001" / "annotation")


# -- the evaluation on a tiny gold set --------------------------------------------------------
A = [
    "Beam search prunes partial hypotheses.",
    "Tables list corpora.",
    "Figures show curves.",
    "Code is public.",
    "Thanks go here.",
    "The lexicon contains twelve thousand entries collected from newswire text over several years.",
]
B = ["We annotate discourse relations.", "Agreement is measured with kappa.", "Results follow."]


def tiny_gold_set(root: Path) -> Path:
    """Two topics, three citances: A1 and B1 name only their gold sentence's words; A2's words
    are in A's first sentence but its gold is A's last (6th), longest sentence, which shares no
    word with the first — every model, whatever its parameters, ranks it last (BM25 scores the
    sentences without query terms 0 and keeps document order, LMD puts the shortest first)."""
    _topic(
        root,
        "A00-0001",
        A,
        [("Smith (2000) used beam search.", "['1']"), ("Jones (2001) reports that partial hypotheses help.", "['6']")],
    )
    _topic(root, "B00-0002", B, [("Brown et al. (2002) measured agreement with kappa.", "['2']")])
    return root


def test_character_offset_scores_by_hand():
    scores = char_scores([(0, 10), (20, 30)], [(5, 25)])  # 10 of 20 selected characters are gold, 10 of 20 gold found
    assert scores == pytest.approx({"c-P": 0.5, "c-R": 0.5, "c-F": 0.5})
    assert char_scores([(0, 10)], [(10, 20)])["c-F"] == 0.0


def test_evaluation_on_a_tiny_gold_set_with_known_scores(tmp_path):
    data = tiny_gold_set(tmp_path / "data")
    tables = run(CLSciSumm(data, ("bm25", "lmd"), folds=2, ontologies=(), acronyms=False), [], tmp_path / "out").tables
    a, b = sum(map(len, A)), sum(map(len, B))
    expected = {  # A1 and B1 perfect at n = 1 (what both folds choose), A2 wrong with its gold ranked 6th
        "c-P": 2 / 3,
        "c-R": 2 / 3,
        "c-F": 2 / 3,
        "c-P@1": 2 / 3,
        "Rg-1": 2 / 3,
        "Rg-2": 2 / 3,
        "nDCG": (1 + 1 / math.log2(7) + 1) / 3,
        # A's top 5 leaves out its 6th sentence, A2's gold; B has 3 sentences
        "c-P@5": (len(A[0]) / (a - len(A[5])) + 0 + len(B[1]) / b) / 3,
    }
    for model in ("BM25", "LMD"):
        for column, value in expected.items():
            assert tables[0].rows[model][column][0] == pytest.approx(value), (model, column)
        assert [tables[1].rows[model][c][0] for c in ("P", "R", "F1")] == pytest.approx([2 / 3] * 3)
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [c["n"] for c in results["config"]["chosen"]["LMD"]] == [1, 1]
    assert results["per_query"]["LMD"]["c-F"] == {"A00-0001:1": 1.0, "A00-0001:2": 0.0, "B00-0002:1": 1.0}
    assert "| LMD |" in (tmp_path / "out" / "results.md").read_text()


def test_evaluation_needs_two_topics(tmp_path):
    _topic(tmp_path, "A00-0001", A, [("Smith (2000) used beam search.", "['1']")])
    with pytest.raises(CitegraphError, match="at least 2 topics"):
        run(CLSciSumm(tmp_path, ("lmd",)), [], tmp_path / "out")


def test_evaluate_contextualise_cli(tmp_path):
    data = tiny_gold_set(tmp_path / "data")
    result = CliRunner().invoke(
        main,
        [
            "evaluate",
            "contextualise",
            "--data",
            str(data),
            "--models",
            "lmd,we+dmn",
            "--folds",
            "2",
            "--out",
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "66.67" in result.output and "WE+dmn" in result.output
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["tables"][0]["rows"]["LMD"]["c-F"][0] == pytest.approx(2 / 3)
    assert results["config"]["ontology"]["sources"][0]["source"].endswith("acm_ccs2012.xml.gz")
    assert (tmp_path / "out" / "vectors" / "vectors.npy").is_file()
    bad = CliRunner().invoke(
        main, ["evaluate", "contextualise", "--data", str(data), "--models", "lmx", "--out", str(tmp_path / "out")]
    )
    assert bad.exit_code != 0 and "unknown contextualisation model 'lmx'" in bad.output


# -- on the graph --------------------------------------------------------------------------
def _abstract(reference) -> list:
    """The sentences a paper's abstract is made of here: its first nine after the title (sid 0)."""
    return [s for s in reference.sentences if s.sid != "0"][:9]


def _corpus(path: Path) -> dict:
    """Ten CL-SciSumm papers as graph papers (title: sentence 0 or the id, abstract: the next
    nine sentences) and their citing papers with the citances as the contexts of their citations."""
    topics = read_topics(shared(CLSCISUMM))[-10:]
    citing: dict[str, dict] = {}
    records = []
    for topic in topics:
        title = next((s.text for s in topic.reference.sentences if s.sid == "0"), f"Paper {topic.id}")
        abstract = " ".join(s.text for s in _abstract(topic.reference))
        records.append({"id": topic.id, "title": title, "abstract": abstract})
        for c in topic.citances:
            paper = citing.setdefault(
                c.citing_id, {"id": c.citing_id, "title": f"citing paper {c.citing_id}", "references": {}}
            )
            paper["references"].setdefault(topic.id, []).append(c.text)
    for paper in citing.values():
        if paper["id"] not in {r["id"] for r in records}:
            paper["references"] = [{"id": cited, "contexts": texts} for cited, texts in paper["references"].items()]
            records.append(paper)
    write_jsonl(path, records)
    return {t.id: t for t in topics}


W09 = {"3": "W09-0621:3", "1": "W09-0621:11"}  # gold sentence → a citance of W09-0621 whose gold is in the abstract


def _texts(topic, ids: tuple[str, ...] = tuple(W09.values())) -> list[str]:
    by_id = {c.id: c.text for c in topic.citances}
    return [by_id[i] for i in ids]


def test_contextualise_on_the_graph(store, tmp_path):
    topics = _corpus(tmp_path / "corpus.jsonl")
    ingest(store, formats.get("jsonl"), [tmp_path / "corpus.jsonl"])
    w09 = topics["W09-0621"].reference

    reference = on_graph.cited_reference(store, "W09-0621")
    assert (reference.sentences[0].sid, reference.sentences[0].text) == ("title", "Paper W09-0621")
    assert [(s.sid, s.text) for s in reference.sentences[1:]] == [(s.sid, s.text) for s in _abstract(w09)]

    stored = on_graph.citing_texts(store, "W09-0621")
    assert sorted(c.text for c in stored) == sorted(c.text for c in topics["W09-0621"].citances)
    one = stored[0]
    assert {c.text for c in on_graph.citing_texts(store, "W09-0621", citing=one.citing)} >= {one.text}

    folder = tmp_path / "build"
    lmd = get("lmd")
    resources = on_graph.graph_resources(store, lmd, folder)
    manifest = json.loads((folder / on_graph.MANIFEST).read_text())
    assert manifest["corpus"]["papers"] == manifest["read"]["papers"] > 10  # the cited and the citing papers
    assert manifest["corpus"]["contexts"] == manifest["read"]["contexts"] > 0
    assert not (folder / on_graph.VECTORS).exists()  # LMD needs no vectors
    found = on_graph.contextualise(
        reference, [on_graph.CitingText(t) for t in _texts(topics["W09-0621"])], lmd, resources, k=3
    )
    assert [f.evidence[0].sid for f in found] == list(W09)  # the annotators' sentence first
    assert all(len(f.evidence) == 3 and f.evidence[0].score >= f.evidence[1].score for f in found)

    dmn = get("we+dmn")
    dmn_resources = on_graph.graph_resources(store, dmn, folder)
    assert (folder / on_graph.VECTORS / "vectors.npy").is_file() and not (folder / on_graph.CORPUS).exists()
    assert dmn_resources.ontology.pairs > 0  # ACM CCS (bundled: no taxonomy in this graph) and mined acronyms
    # the tuned setting (λ = 0, γ = 0) is LMD; another setting mixes in the vectors and synonyms
    texts = [f.citing for f in found]
    tuned = on_graph.contextualise(reference, texts, dmn, dmn_resources)
    assert [[e.sid for e in f.evidence] for f in tuned] == [[e.sid for e in f.evidence] for f in found]
    mixed = on_graph.contextualise(reference, texts, dmn, dmn_resources, params={"mu": 100, "lam": 0.5, "gamma": 0.5})
    assert all(np.isfinite(e.score) for f in mixed for e in f.evidence)

    # a changed graph makes the build stale
    (tmp_path / "more.jsonl").write_text(json.dumps({"id": "NEW-1", "title": "Paraphrase extraction"}) + "\n")
    ingest(store, formats.get("jsonl"), [tmp_path / "more.jsonl"])
    assert on_graph.prepare_corpus(store, folder)["corpus"]["papers"] == manifest["corpus"]["papers"] + 1
    assert not (folder / on_graph.VECTORS).exists()

    # synonyms: the ACM concepts once the taxonomy is in the graph, or the user's thesaurus instead
    from_file = read_ontology(bundled_ccs())
    ingest(store, formats.get("taxonomy"), [BUNDLED])
    in_graph = on_graph.graph_ontology(store)
    assert in_graph.sources[0]["source"] == "ACM concepts in the graph"
    assert in_graph.neighbours == from_file.neighbours and in_graph.synonyms("hci") == {"human", "comput", "interact"}
    (tmp_path / "mine.tsv").write_text("# phrase<TAB>synonyms\nparaphrase\trewording\trestatement\n")
    mine = on_graph.graph_ontology(store, [tmp_path / "mine.tsv"], folder / on_graph.ACRONYMS)
    assert mine.synonyms("paraphras") >= {"reword", "restat"} and not mine.synonyms("hci")
    assert "msrp" in mine.synonyms("paraphras")  # mined from a citing sentence: "Microsoft Research Paraphrase (MSRP)"

    with pytest.raises(CitegraphError, match="'NOPE' is not in the graph"):
        on_graph.cited_reference(store, "NOPE")
    with pytest.raises(CitegraphError, match="NEW-1 does not cite W09-0621"):
        on_graph.citing_texts(store, "W09-0621", citing="NEW-1")
    with pytest.raises(CitegraphError, match="no content words"):
        on_graph.contextualise(reference, [on_graph.CitingText("(Smith, 2000) and the [CIT]")], lmd, resources)


def test_contextualise_cli(store, server_env, tmp_path):
    topic = _corpus(tmp_path / "corpus.jsonl")["W09-0621"]
    ingest(store, formats.get("jsonl"), [tmp_path / "corpus.jsonl"])
    run = [sys.executable, "-m", "citegraph.cli", "contextualise", "--cited", "W09-0621", "--json"]
    first, second = _texts(topic)
    result = subprocess.run(
        [*run, "--citing", first, "--citing", second, "--rebuild", "-k", "2"],
        capture_output=True,
        text=True,
        env=server_env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert [f["evidence"][0]["sid"] for f in found] == ["3", "1"] and all(len(f["evidence"]) == 2 for f in found)

    result = subprocess.run(
        [*run, "--model", "bm25", "-p", "k1=1.2", "-p", "b=0.75"],
        capture_output=True,
        text=True,
        env=server_env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)  # without --citing: every stored citing sentence of the paper
    assert sorted((f["citing"]["citing"], f["citing"]["text"]) for f in found) == sorted(
        (c.citing_id, c.text) for c in topic.citances
    )

    bad = subprocess.run(
        [*run, "--model", "bm25", "-p", "mu=100"], capture_output=True, text=True, env=server_env, timeout=300
    )
    assert bad.returncode != 0 and "model bm25 has no parameter mu" in bad.stderr
    assert "Traceback" not in bad.stderr


SCISUMMNET = Path(__file__).resolve().parent / "fixtures" / "scisummnet"


def test_a_scisummnet_folder_is_a_corpus_of_papers_and_can_be_subsampled():
    from citegraph.contextualise.training_text import corpus_sample
    from citegraph.retrieval.bm25 import analyze

    documents = corpus_sample([SCISUMMNET])
    assert len(documents) == 3  # one per paper: its full text, then its citing sentences
    assert documents[0][0] == analyze("TextRunner: Open Information Extraction on the Web")  # N07-4013's title
    assert all("cit" not in terms for document in documents for terms in document)  # [CIT] removed
    assert len(corpus_sample([SCISUMMNET], 0.34, seed=1)) == 1 and corpus_sample([SCISUMMNET], 0.0) == []
    assert corpus_sample([SCISUMMNET], 0.67, seed=1) == corpus_sample([SCISUMMNET], 0.67, seed=1)


def test_seeds_and_corpus_shares_print_mean_sd_and_a_learning_curve(tmp_path):
    data = tiny_gold_set(tmp_path / "data")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        [
            "evaluate",
            "contextualise",
            "--data",
            str(data),
            "--models",
            "lmd,we",
            "--folds",
            "2",
            "--out",
            str(out),
            "--seeds",
            "0,1",
            "--corpus-shares",
            "0,1",
            "--corpus",
            str(SCISUMMNET),
            "--no-acronyms",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "mean ± sd over seeds 0, 1" in result.output and "Learning curve" in result.output
    runs = {
        (share, seed): json.loads((out / f"share-{share}" / f"seed-{seed}" / "results.json").read_text())
        for share in ("0", "1")
        for seed in (0, 1)
    }
    assert {k: r["config"]["vectors"]["corpus_documents"] for k, r in runs.items()} == {
        ("0", 0): 0,
        ("0", 1): 0,
        ("1", 0): 3,
        ("1", 1): 3,
    }
    assert runs["1", 0]["config"]["vectors"]["seed"] == 0 and runs["1", 1]["config"]["vectors"]["seed"] == 1
    summary = json.loads((out / "results.json").read_text())
    lmd = [runs[k]["tables"][0]["rows"]["LMD"]["c-F"][0] for k in runs]
    assert summary["tables"][1]["rows"]["LMD"]["100 %"][0] == pytest.approx(sum(lmd[2:]) / 2)
    assert summary["tables"][0]["rows"]["WE"]["c-F"][0] == pytest.approx(
        (runs["1", 0]["tables"][0]["rows"]["WE"]["c-F"][0] + runs["1", 1]["tables"][0]["rows"]["WE"]["c-F"][0]) / 2
    )
    # the same series again, LMD only, reads the runs back instead of redoing them
    again = CliRunner().invoke(
        main,
        [
            "evaluate",
            "contextualise",
            "--data",
            str(data),
            "--models",
            "lmd",
            "--folds",
            "2",
            "--out",
            str(out),
            "--seeds",
            "0,1",
            "--corpus-shares",
            "0,1",
            "--corpus",
            str(SCISUMMNET),
            "--no-acronyms",
        ],
    )
    assert again.exit_code == 0 and again.output.count("reusing") == 4 and "training" not in again.output
    reread = json.loads((out / "results.json").read_text())["tables"]
    assert [t["rows"] for t in reread[:2]] == [{"LMD": t["rows"]["LMD"]} for t in summary["tables"][:2]]
