"""The recommender's graph side recomputed from the edges: on a real release, the S2ORC
sample (1,000 papers citing 6,049 papers outside it, which the graph keeps as :External
stubs, so that most co-cited papers are stubs), and on 60 hand-built papers that cite
five much-cited papers outside the corpus, which lead the co-citation of most seeds, so
that a kind's top papers must be found past them."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict

import pytest
from test_bulk import dump

from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.recommend import Recommender

from conftest import shared, write_jsonl


def stubbed(tmp_path):
    """60 papers, each citing 2–5 earlier ones and 1–3 of five papers outside the corpus."""
    rng = random.Random(3)
    rows = [
        {
            "id": f"P{i:02}",
            "title": f"Paper number {i}",
            "year": 2000 + i // 6,
            "references": rng.sample([f"P{j:02}" for j in range(i)], min(i, rng.randint(2, 5)))
            + rng.sample([f"X{j}" for j in range(5)], rng.randint(1, 3)),
        }
        for i in range(60)
    ]
    return write_jsonl(tmp_path / "stubbed.jsonl", rows)


@pytest.mark.parametrize("source, depth, led_by_stubs", [("s2orc", 5, 5), ("stubbed", 3, 20)])
def test_each_kinds_candidates_are_its_top_papers_that_are_not_stubs(store, tmp_path, source, depth, led_by_stubs):
    """Co-citation reads the citing papers' cited_ids, stubs included; the candidates are
    still each kind's top ``graph_depth`` papers that are not stubs (by citing papers, then
    id), and each one's co-citation count is the paths the edges give."""
    if source == "s2orc":
        ingest(store, formats.get("s2orc"), [shared("samples/s2orc/metadata_sample.jsonl")], IngestOptions())
    else:
        ingest(store, formats.get("jsonl"), [stubbed(tmp_path)], IngestOptions())
    nodes, rels = dump(store)
    papers = {p["id"]: p for p in (json.loads(props) for labels, props in nodes if labels == ("Paper",))}
    cites, cited_by = defaultdict(set), defaultdict(set)
    for kind, citing, cited, _ in rels:
        if kind == "CITES":
            cites[citing].add(cited)
            cited_by[cited].add(citing)

    def top(citers: Counter) -> list[str]:
        return [c for c, _ in sorted(citers.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]]

    recommender = Recommender(store, [], graph_depth=depth, fanout=100_000, contexts=False)
    seeds = sorted(papers, key=lambda p: (-len(cites[p]), p))[:40]
    passed_stubs = 0
    for seed in seeds:
        refs, excluded = cites[seed], {seed, *cites[seed]}
        referenced = Counter(c for r in refs for c in cites[r] if c in papers and c not in excluded)
        coupled = Counter(x for r in refs for x in cited_by[r] if x not in excluded)
        paths, cociting = Counter(), defaultdict(set)
        for r in refs:
            for x in cited_by[r] - {seed}:
                for c in cites[x] - {r} - excluded:
                    paths[c] += 1
                    cociting[c].add(x)
        cocited = Counter({c: len(xs) for c, xs in cociting.items()})
        passed_stubs += bool(set(top(cocited)) - set(papers))
        chosen = {*top(referenced), *top(coupled), *top(Counter({c: n for c, n in cocited.items() if c in papers}))}
        year = papers[seed].get("year")
        allowed = {c for c in chosen if year is None or papers[c].get("year") is None or papers[c]["year"] <= year}
        found = recommender.candidates(recommender.seed(seed))
        assert set(found) == allowed, seed
        assert {c: found[c].facts.cocitation for c in found} == {c: paths[c] for c in found}, seed
    assert passed_stubs >= led_by_stubs, passed_stubs
