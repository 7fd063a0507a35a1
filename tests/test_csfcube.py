"""CSFCube: the release reader, the official measures, and evaluations end to end on a fixture.

The fixture (tests/fixtures/csfcube) is a miniature release in the official format: 4 query
papers asked about 7 (paper, facet) pairs (2 background, 3 method, 2 result; folds of unequal
size for method), 14 candidates in pools of 8–9, the annotators' grades beside the
adjudicated ones, objective and other labels, and a quoted title with a comma in the CSV.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import statistics
from pathlib import Path

import numpy as np
import pytest

from citegraph.errors import CitegraphError, InputError
from citegraph.evaluation.csfcube import (
    FOLDS,
    MEASURES,
    OFFICIAL,
    PAPERS,
    TREC,
    TREC_MEASURES,
    fold_mean,
    official,
    parse_system,
    read_release,
    run_csfcube,
)
from citegraph.evaluation.metrics import evaluate
from citegraph.retrieval.base import Document, Hit

from conftest import write_jsonl

FIXTURE = Path(__file__).parent / "fixtures" / "csfcube"
QUERY_IDS = [
    "1198002_method",
    "1198002_result",
    "3264001_background",
    "3264001_result",
    "5300003_background",
    "5300003_method",
    "5308004_method",
]


# -- the reader --------------------------------------------------------------------------
def test_reads_the_fixture():
    release = read_release(FIXTURE)
    assert len(release.papers) == 18 and len(release.candidate_documents()) == 14
    assert sorted(release.queries) == QUERY_IDS
    query = release.queries["5308004_method"]
    assert (query.title, query.year, query.paper_type) == (
        'Few-shot relation classification: a dataset, "prototypes", and baselines',
        2018,
        "resources/evaluation",
    )
    pool = release.pools["1198002_method"]
    assert pool.grades == (0, 3, 1, 1, 0, 0, 0, 0)  # relevance_adju, not relevance_ann1/2 or max/min
    assert pool.qrels["11000105"] == 3 and pool.relevant == 1
    background = release.facet_text(release.queries["3264001_background"]).split("\n")
    assert background == [
        "Unsolicited bulk messages remain a costly nuisance for users of e-mail and SMS services.",
        ("We investigate whether combining heterogeneous classifiers improves the filtering of such messages."),
    ]  # background and objective sentences
    assert "publicly available" not in release.facet_text(query)  # other_label is no facet
    assert release.whole_paper(query).abstract.count("\n") == 4  # five sentences, one per line
    assert release.splits["method"]["fold1_test"] == ("1198002_method", "5308004_method")
    assert release.splits["all"]["fold2_test"] == ("5300003_background", "5300003_method", "3264001_result")


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "csfcube"))


def _edit_line(path: Path, line: int, edit) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[line - 1] = edit(lines[line - 1])
    path.write_text("\n".join(lines), encoding="utf-8")


def _edit_row(path: Path, line: int, edit) -> None:
    def change(text: str) -> str:
        row = json.loads(text)
        edit(row)
        return json.dumps(row)

    _edit_line(path, line, change)


def _edit_json(path: Path, edit) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    edit(value)
    path.write_text(json.dumps(value), encoding="utf-8")


def _set(mapping: dict, key: str, value) -> None:
    mapping[key] = value


BROKEN = {
    "abstract not a list": (
        lambda d: _edit_row(d / PAPERS, 3, lambda r: _set(r, "abstract", "One sentence.")),
        f"{PAPERS}:3: field 'abstract' expected a list of strings, got str",
    ),
    "sentence not a string": (
        lambda d: _edit_row(d / PAPERS, 7, lambda r: r["abstract"].__setitem__(1, None)),
        f"{PAPERS}:7: field 'abstract[1]' expected a string, got null",
    ),
    "labels misaligned": (
        lambda d: _edit_row(d / PAPERS, 5, lambda r: r["pred_labels"].pop()),
        f"{PAPERS}:5: field 'pred_labels' has 3 labels for 4 sentences",
    ),
    "paper twice": (
        lambda d: _edit_row(d / PAPERS, 6, lambda r: _set(r, "paper_id", "11000101")),
        f"{PAPERS}:6: field 'paper_id' 11000101 was already read at line 5",
    ),
    "truncated line": (lambda d: _edit_line(d / PAPERS, 2, lambda s: s[:80]), f"{PAPERS}:2: malformed JSON"),
    "query without facet sentences": (
        lambda d: _edit_row(d / PAPERS, 4, lambda r: _set(r, "pred_labels", ["background_label"] * 5)),
        f"{PAPERS}:4: field 'pred_labels' no sentence is labelled method, but 5308004_method is a query",
    ),
    "unknown facet": (
        lambda d: _edit_line(d / "queries-release.csv", 4, lambda s: s.replace(",method,", ",methods,")),
        "queries-release.csv:4: field 'facet' expected one of background, method, result, got 'methods'",
    ),
    "query paper missing": (
        lambda d: _edit_line(d / "queries-release.csv", 2, lambda s: s.replace("3264001", "1")),
        f"queries-release.csv:2: field 'pid' paper 1 is not in {PAPERS}",
    ),
    "grade out of range": (
        lambda d: _edit_json(
            d / "test-pid2anns-csfcube-method.json", lambda v: v["1198002"]["relevance_adju"].__setitem__(2, 5)
        ),
        "test-pid2anns-csfcube-method.json:1: field '1198002.relevance_adju[2]' expected a grade 0-3, got 5",
    ),
    "grades missing": (
        lambda d: _edit_json(d / "test-pid2anns-csfcube-method.json", lambda v: v["1198002"]["relevance_adju"].pop()),
        "field '1198002.relevance_adju' expected a list of 8 grades, one per candidate",
    ),
    "candidate without abstract": (
        lambda d: _edit_json(
            d / "test-pid2anns-csfcube-result.json", lambda v: v["3264001"]["cands"].__setitem__(0, "404")
        ),
        f"test-pid2anns-csfcube-result.json:1: field '3264001.cands[0]' paper 404 is not in {PAPERS}",
    ),
    "annotated query not listed": (
        lambda d: _edit_json(d / "test-pid2anns-csfcube-result.json", lambda v: _set(v, "5300003", v["3264001"])),
        "field '5300003' query 5300003_result is not in queries-release.csv",
    ),
    "split names a query of another facet": (
        lambda d: _edit_line(d / "evaluation_splits.json", 29, lambda s: s.replace("5300003_method", "1198002_result")),
        "evaluation_splits.json:29: field 'method.fold2_test' 1198002_result is not an annotated method query",
    ),
    "empty test fold": (
        lambda d: _edit_json(d / "evaluation_splits.json", lambda v: _set(v["result"], "fold2_test", [])),
        "field 'result.fold2_test' is missing or empty",
    ),
    "no all splits": (
        lambda d: _edit_json(d / "evaluation_splits.json", lambda v: v.pop("all")),
        "evaluation_splits.json:1: field 'all' is missing",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_copies_name_file_line_and_field(tmp_path, case):
    folder = _copy(tmp_path)
    breaking, message = BROKEN[case]
    breaking(folder)
    with pytest.raises(InputError) as caught:
        read_release(folder)
    assert message in str(caught.value)
    assert str(caught.value.problem.where.path).startswith(str(folder))


def test_a_missing_file_is_named(tmp_path):
    folder = _copy(tmp_path)
    (folder / "test-pid2anns-csfcube-result.json").unlink()
    with pytest.raises(CitegraphError, match="test-pid2anns-csfcube-result.json is missing"):
        read_release(folder)


# -- the measures ------------------------------------------------------------------------
# 25 candidates in ranked order; grades ≥ 2 (relevant) at ranks 2, 4, 7 and 22.
GRADES = [1, 3, 0, 2, 0, 0, 2, 0, 1, *[0] * 12, 2, 0, 1, 0]


def test_official_measures_by_hand():
    assert len(GRADES) == 25
    got = official(GRADES)
    assert got["R-Prec"] == pytest.approx(4 / 22)  # precision at the last relevant rank (22), not at R = 4
    assert got["P@20"] == pytest.approx(3 / 20)
    assert got["R@20"] == pytest.approx(3 / 4)
    # linear gains; ranks 1 and 2 undiscounted, rank r > 2 divided by log2(r); ideal 3,2,2,2,1,1,1
    ideal5 = 3 + 2 + 2 / math.log2(3) + 2 / 2 + 1 / math.log2(5)
    assert got["NDCG%20"] == pytest.approx((1 + 3 + 0 + 2 / 2 + 0) / ideal5)  # int(0.2 × 25) = 5 ranks
    assert got["NDCG%20"] == pytest.approx(0.649981, abs=1e-6)  # 5 / 7.692536
    ideal = ideal5 + 1 / math.log2(6) + 1 / math.log2(7)
    top20 = 1 + 3 + 2 / 2 + 2 / math.log2(7) + 1 / math.log2(9)
    assert got["NDCG@20"] == pytest.approx(top20 / ideal)
    assert got["NDCG"] == pytest.approx((top20 + 2 / math.log2(22) + 1 / math.log2(24)) / ideal)


def test_official_measures_of_edge_cases():
    assert official([]) == dict.fromkeys(MEASURES, 0.0)
    nothing_relevant = official([1, 0, 1, 0, 0, 0])
    assert nothing_relevant["R-Prec"] == nothing_relevant["R@20"] == 0.0 and nothing_relevant["NDCG"] > 0
    assert official([0, 3, 2, 0])["NDCG%20"] == 0.0  # int(0.2 × 4) = 0 ranks, as ndcg_at_k(r, 0)


def test_trec_eval_measures_through_metrics_evaluate_by_hand():
    docs = [f"d{i:02d}" for i in range(len(GRADES))]
    result = evaluate(
        {"q": dict(zip(docs, GRADES))},
        {"q": [Hit(d, 100.0 - i) for i, d in enumerate(docs)]},
        list(TREC_MEASURES.values()),
        pool_sizes={"q": 25},
    )
    got = {m: result.per_query[name]["q"] for m, name in TREC_MEASURES.items()}
    assert got["R-Prec"] == pytest.approx(2 / 4)  # trec_eval: precision at rank R = 4
    assert got["P@20"] == pytest.approx(3 / 20)
    assert got["R@20"] == pytest.approx(3 / 4)
    # gains 1, 3, 0, 2, 0 discounted by log2(rank + 1); ideal 3, 2, 2, 2, 1
    dcg = 1 + 3 / math.log2(3) + 2 / math.log2(5)
    ideal = 3 + 2 / math.log2(3) + 2 / math.log2(4) + 2 / math.log2(5) + 1 / math.log2(6)
    assert got["NDCG%20"] == pytest.approx(dcg / ideal)
    assert got["NDCG%20"] == pytest.approx(0.576667, abs=1e-6)


def test_the_summary_is_the_mean_of_the_two_fold_means():
    folds = {"fold1_test": ["a", "b"], "fold2_test": ["c"]}
    assert fold_mean({"a": 1.0, "b": 0.0, "c": 1.0}, folds) == pytest.approx(0.75)  # not 2/3
    assert fold_mean({"a": 1.0}, folds) == pytest.approx(0.25)  # unranked queries count 0


# -- end to end ----------------------------------------------------------------------------
def reference(grades: list[int]) -> dict[str, float]:
    """ranking_eval.compute_metrics written out plainly, to check the module against."""
    relevant = [int(g >= 2) for g in grades]

    def dcg(gains, k):
        return sum(g if i < 2 else g / math.log2(i + 1) for i, g in enumerate(gains[:k]))

    def ndcg(k):
        best = dcg(sorted(grades, reverse=True), k)
        return dcg(grades, k) / best if best else 0.0

    last = len(relevant) - relevant[::-1].index(1) if any(relevant) else 0
    return {
        "R-Prec": sum(relevant[:last]) / last if last else 0.0,
        "P@20": sum(relevant[:20]) / 20,
        "R@20": sum(relevant[:20]) / sum(relevant) if any(relevant) else 0.0,
        "NDCG": ndcg(len(grades)),
        "NDCG@20": ndcg(20),
        "NDCG%20": ndcg(len(grades) // 5),
    }


@pytest.fixture(scope="module")
def evaluated(tiny_bert, tmp_path_factory):
    folder = tmp_path_factory.mktemp("csfcube")
    models = ["bm25:bm25s", f"hf:{tiny_bert}", f"hf:{tiny_bert}:facet", f"hf:{tiny_bert}:maxsim"]
    result = run_csfcube(FIXTURE, models, folder / "out", work=folder / "work")
    return models, folder / "out", result


def _check_query(result: dict, system: str, qid: str, scores: dict[str, float]) -> None:
    """``scores`` ranked (best first, ties by id) must give the query's reported official values."""
    release = read_release(FIXTURE)
    order = sorted(scores, key=lambda c: (-scores[c], c))
    expected = reference([release.pools[qid].qrels[c] for c in order])
    for measure in MEASURES:
        assert result["per_query"][system][OFFICIAL][measure][qid] == pytest.approx(expected[measure]), measure


def test_writes_results_tables_and_runs(evaluated):
    models, out, result = evaluated
    saved = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert saved["config"]["models"] == models and set(saved["config"]["systems"]) == set(models)
    assert saved["config"]["queries"]["5300003_method"] == {
        "facet": "method",
        "title": "Adapting sentiment classifiers across product domains",
        "year": 2011,
        "paper_type": "data-driven approach",
        "pool": 9,
        "relevant": 2,
    }
    for system in models:
        for convention in (OFFICIAL, TREC):
            assert set(saved["per_query"][system][convention]) == set(MEASURES)
            assert sorted(saved["per_query"][system][convention]["NDCG"]) == QUERY_IDS
    assert len(saved["tables"]) == 8  # 4 facets (with all) × 2 conventions
    rows = (out / "results.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 8 * len(models) * len(MEASURES)
    assert "**CSFCube method, official measures (ranking_eval.py), mean of the two test folds**" in (
        out / "results.md"
    ).read_text(encoding="utf-8")
    assert len(list((out / "runs").glob("*.run"))) == len(models)
    assert result["summary"]["bm25:bm25s"][OFFICIAL]["all"]["R@20"] == 1.0  # pools of 8–9 fit in the top 20


def test_bm25_numbers_by_hand(evaluated):
    from citegraph.retrieval.bm25 import K1, B, analyze

    _, out, result = evaluated
    release = read_release(FIXTURE)
    terms = {d.id: analyze(d.text) for d in release.candidate_documents()}
    avgdl = statistics.mean(map(len, terms.values()))
    qid = "5300003_method"
    query = analyze(release.facet_text(release.queries[qid]))
    scores = {}
    for doc in release.pools[qid].candidates:
        score = 0.0
        for term in query:
            n = sum(term in t for t in terms.values())
            f = terms[doc].count(term)
            idf = math.log((len(terms) - n + 0.5) / (n + 0.5) + 1)
            score += idf * f / (f + K1 * (1 - B + B * len(terms[doc]) / avgdl))
        scores[doc] = score
    _check_query(result, "bm25:bm25s", qid, scores)
    matched = sorted((c for c in scores if scores[c] > 0), key=lambda c: (-scores[c], c))
    run = [line.split() for line in (out / "runs" / "bm25_bm25s.run").read_text().splitlines()]
    assert [doc for q, _, doc, *_ in run if q == qid] == matched
    assert [float(s) for q, _, _, _, s, _ in run if q == qid] == pytest.approx([scores[c] for c in matched], rel=1e-4)


def test_dense_numbers_by_hand(evaluated, tiny_bert):
    from citegraph.retrieval.dense.encoders import get_encoder

    _, _, result = evaluated
    encoder = get_encoder(f"hf:{tiny_bert}")
    release = read_release(FIXTURE)
    qid = "1198002_result"
    pool = release.pools[qid].candidates
    vectors = encoder.encode([release.papers[c].document() for c in pool])
    for system, query in (
        (f"hf:{tiny_bert}", release.papers["1198002"].document()),
        (f"hf:{tiny_bert}:facet", Document("query", release.facet_text(release.queries[qid]))),
    ):
        q = encoder.encode([query])[0]
        _check_query(result, system, qid, dict(zip(pool, (-((vectors - q) ** 2).sum(axis=1)).tolist())))


def test_maxsim_numbers_by_hand(evaluated, tiny_bert):
    from citegraph.retrieval.dense.encoders import get_encoder

    _, _, result = evaluated
    encoder = get_encoder(f"hf:{tiny_bert}")
    release = read_release(FIXTURE)

    def sentences(texts):
        return np.concatenate(encoder.encode_sentences([Document(str(i), t) for i, t in enumerate(texts)]))

    qid = "5308004_method"
    query = sentences(release.papers["5308004"].facet_sentences("method"))
    scores = {}
    for c in release.pools[qid].candidates:
        own = sentences(release.papers[c].sentences)
        scores[c] = -min(float(np.linalg.norm(a - b)) for a in query for b in own)  # l2: closest pair
    _check_query(result, f"hf:{tiny_bert}:maxsim", qid, scores)


def test_summaries_average_fold_means_as_the_official_script(evaluated):
    models, out, result = evaluated
    release = read_release(FIXTURE)
    for system in models:
        for convention in (OFFICIAL, TREC):
            values = result["per_query"][system][convention]["NDCG%20"]
            for facet in ("method", "all"):
                means = [statistics.mean(values[q] for q in release.splits[facet][fold]) for fold in FOLDS]
                assert result["summary"][system][convention][facet]["NDCG%20"] == pytest.approx(statistics.mean(means))
    saved = json.loads((out / "results.json").read_text(encoding="utf-8"))
    table = next(t for t in saved["tables"] if t["title"].startswith("CSFCube method, official"))
    assert table["rows"]["bm25:bm25s"]["R-Prec"][0] == result["summary"]["bm25:bm25s"][OFFICIAL]["method"]["R-Prec"]


def _same(got: dict, want: dict) -> None:
    """Equal nested dicts of numbers (pytest.approx compares one level only)."""
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, dict):
            _same(got[key], value)
        else:
            assert got[key] == pytest.approx(value), key


def test_a_run_file_scores_as_the_run_in_process(evaluated, tmp_path, tiny_bert):
    _, out, result = evaluated
    for system in ("bm25:bm25s", f"hf:{tiny_bert}"):
        path = out / "runs" / (re.sub(r"[^A-Za-z0-9._-]+", "_", system).strip("_") + ".run")
        again = run_csfcube(FIXTURE, [], tmp_path / path.stem, run_file=path)
        for convention in (OFFICIAL, TREC):
            _same(again["per_query"][path.stem][convention], result["per_query"][system][convention])
        _same(again["summary"][path.stem], result["summary"][system])


def test_a_run_file_of_bare_pids_for_one_facet(evaluated, tmp_path):
    _, out, result = evaluated
    lines = [line.split() for line in (out / "runs" / "bm25_bm25s.run").read_text().splitlines()]
    run = tmp_path / "method-only.run"
    run.write_text(
        "".join(
            f"{q.removesuffix('_method')} Q0 {d} {r} {s} mine\n" for q, _, d, r, s, _ in lines if q.endswith("_method")
        )
    )
    again = run_csfcube(FIXTURE, [], tmp_path / "out", run_file=run, run_facet="method")
    assert set(again["summary"]["method-only"][OFFICIAL]) == {"method"}  # neither other facets nor all
    for convention in (OFFICIAL, TREC):
        for measure, values in again["per_query"]["method-only"][convention].items():
            assert set(values) == {"1198002_method", "5300003_method", "5308004_method"}
            _same(values, {q: result["per_query"]["bm25:bm25s"][convention][measure][q] for q in values})
    assert all(" method," in t.title for t in again["tables"])


def test_run_files_naming_no_query_are_refused(tmp_path):
    run = tmp_path / "bad.run"
    run.write_text("5300003 Q0 11000108 1 2.5 mine\n")  # a background and method query, no result query
    with pytest.raises(CitegraphError, match="not '<pid>_<facet>' of annotated queries"):
        run_csfcube(FIXTURE, [], tmp_path / "out", run_file=run)
    with pytest.raises(CitegraphError, match="not pids of result queries"):
        run_csfcube(FIXTURE, [], tmp_path / "out", run_file=run, run_facet="result")


def test_a_partial_run_is_scored_as_the_official_script_and_absent_queries_score_zero(tmp_path):
    """The official script scores the ranked pool members only; citegraph's own policy
    (``unranked="append"``) appends the others in id order. An id outside the pool is ignored."""
    run = tmp_path / "partial.run"
    run.write_text("1198002_method Q0 11000105 1 2.5 mine\n1198002_method Q0 99 2 2.0 mine\n")  # 99: not in the pool
    warned = []
    result = run_csfcube(FIXTURE, [], tmp_path / "out", run_file=run, log=warned.append)
    values, unranked = result["per_query"]["partial"][OFFICIAL], result["per_query"]["partial"]["unranked"]
    assert {m: values[m]["1198002_method"] for m in MEASURES} == pytest.approx(reference([3]))
    assert unranked["1198002_method"] == 7 and unranked["5308004_method"] == 8
    assert any("partial leaves pool members unranked" in w and "1198002_method (7)" in w for w in warned)
    for measure in MEASURES:
        assert all(v == 0.0 for q, v in values[measure].items() if q != "1198002_method")
        assert all(v == 0.0 for q, v in result["per_query"]["partial"][TREC][measure].items() if q != "1198002_method")
    appended = run_csfcube(FIXTURE, [], tmp_path / "out2", run_file=run, unranked="append")
    # 11000105 first, the other seven candidates after it in id order: grades 3, 0, 1, 1, 0, 0, 0, 0
    expected = reference([3, 0, 1, 1, 0, 0, 0, 0])
    assert expected["NDCG"] == pytest.approx((3 + 1 / math.log2(3) + 1 / 2) / (3 + 1 + 1 / math.log2(3)))
    assert {m: appended["per_query"]["partial"][OFFICIAL][m]["1198002_method"] for m in MEASURES} == pytest.approx(
        expected
    )


def test_a_query_in_its_own_pool_is_not_counted_when_the_run_leaves_it_out(tmp_path):
    """Real CSFCube pools list some queries as their own candidates; the authors' runs leave
    the query out and their script never sees it (nor any other candidate a run leaves out).
    A release with such a pool, a run that leaves out the query and one candidate, and
    ranking_eval's computation written out (``reference``)."""
    release = tmp_path / "release"
    shutil.copytree(FIXTURE, release)
    anns = release / "test-pid2anns-csfcube-method.json"
    pools = json.loads(anns.read_text())
    pools["1198002"]["cands"].insert(0, "1198002")  # the query first in its own pool, graded 0
    pools["1198002"]["relevance_adju"].insert(0, 0)
    anns.write_text(json.dumps(pools))
    ranked = ["11000105", "11000107", "11000104", "11000110", "11000112", "11000114", "11000108"]  # not 11000106 (1)
    run = tmp_path / "mine.run"
    run.write_text("".join(f"1198002_method Q0 {c} {r} {10 - r} mine\n" for r, c in enumerate(ranked, start=1)))
    grades = dict(zip(pools["1198002"]["cands"], pools["1198002"]["relevance_adju"]))
    official = run_csfcube(release, [], tmp_path / "out", run_file=run)["per_query"]["mine"][OFFICIAL]
    assert {m: official[m]["1198002_method"] for m in MEASURES} == pytest.approx(reference([grades[c] for c in ranked]))
    appended = run_csfcube(release, [], tmp_path / "out2", run_file=run, unranked="append")["per_query"]["mine"]
    assert {m: appended[OFFICIAL][m]["1198002_method"] for m in MEASURES} == pytest.approx(
        reference([grades[c] for c in ranked] + [1, 0])
    )  # 11000106, then the query: id order
    assert appended[OFFICIAL]["NDCG"]["1198002_method"] < official["NDCG"]["1198002_method"]


def test_model_names():
    from citegraph.retrieval.spec import BM25, Dense

    assert parse_system("bm25") == (BM25(), False)
    assert parse_system("bm25:bm25s") == (BM25(backend="bm25s"), False)
    assert parse_system("hf:allenai/specter") == (Dense("hf:allenai/specter"), False)
    assert parse_system("hf:/models/x:maxsim") == (Dense("hf:/models/x", maxsim=True), False)
    assert parse_system("minilm:facet") == (Dense("minilm"), True)
    with pytest.raises(CitegraphError, match="bm25 takes :multifield"):
        parse_system("bm25:maxsim")
    for name in ("bm25:facet", "minilm:maxsim:facet", "rrf(bm25,minilm):facet"):
        with pytest.raises(CitegraphError, match="read the facet sentences already"):
            parse_system(name)
    with pytest.raises(CitegraphError, match="nothing to evaluate"):
        run_csfcube(FIXTURE, [], Path("unused"))
    with pytest.raises(CitegraphError, match="a run facet needs a run file"):
        run_csfcube(FIXTURE, ["bm25"], Path("unused"), run_facet="method")
    with pytest.raises(CitegraphError, match="two systems are named bm25"):
        run_csfcube(FIXTURE, ["bm25", "bm25"], Path("unused"))


def test_the_command_names_systems_by_spec(tiny_bert, tmp_path):
    from click.testing import CliRunner

    from citegraph.cli import main

    model = f"hf:{tiny_bert}"
    args = [
        "evaluate",
        "csfcube",
        "--data",
        str(FIXTURE),
        "--out",
        str(tmp_path / "out"),
        "--work",
        str(tmp_path / "w"),
    ]
    result = CliRunner().invoke(main, [*args, "--with", f"bm25:bm25s,{model}:maxsim", "--facet-text", model])
    assert result.exit_code == 0, result.output
    saved = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert saved["config"]["models"] == ["bm25:bm25s", f"{model}:maxsim", f"{model}:facet"]
    bad = CliRunner().invoke(main, [*args, "--with", "bm25:bm25s", "--facet-text", "bm25"])
    assert bad.exit_code == 2 and "'bm25:facet': :facet puts the facet sentences as one text" in bad.output


def test_a_year_the_release_writes_as_none_is_read_as_none(tmp_path):
    """Real rows carry "year": "None"; scoring never reads the year, so it must not stop the reader."""
    release = tmp_path / "release"
    shutil.copytree(FIXTURE, release)
    papers = release / "abstracts-csfcube-preds.jsonl"
    rows = [json.loads(line) for line in papers.read_text().splitlines()]
    rows[0]["year"] = "None"
    write_jsonl(papers, rows)
    queries = release / "queries-release.csv"
    lines = queries.read_text().splitlines()
    header, first = lines[0].split(","), lines[1].split(",")
    first[header.index("year")] = "None"
    queries.write_text("\n".join([lines[0], ",".join(first), *lines[2:]]) + "\n")
    read = read_release(release)
    assert read.papers[rows[0]["paper_id"]].year is None
    assert any(q.year is None for q in read.queries.values())
