"""The synthetic corpus generator: determinism, readability by citegraph's own readers, and
the shape of what it generates (citation order, topic homophily, recency, heavy tails,
fields)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from citegraph.ingest import formats
from citegraph.ingest.records import Paper
from citegraph.synth import (
    FIELD_CATEGORIES,
    MAG_FIELDS,
    SynthSpec,
    generate,
    generate_openalex,
    paper_id,
    plan,
    records,
)

from conftest import shared

LARGE = SynthSpec(papers=20_000, seed=7)


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> list[dict]:
    """A 20k-paper S2ORC corpus, parsed."""
    path = tmp_path_factory.mktemp("synth") / "large.jsonl"
    stats = generate(LARGE, path)
    lines = path.read_text().splitlines()
    assert stats.papers == len(lines) == LARGE.papers
    assert stats.bytes == path.stat().st_size
    parsed = [json.loads(line) for line in lines]
    assert stats.citations == sum(len(r["outbound_citations"]) for r in parsed)
    return parsed


@pytest.fixture(scope="module")
def with_contexts(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("synth") / "contexts.jsonl"
    generate(SynthSpec(papers=3000, seed=3, contexts=True), path)
    return path


def index(pid: str) -> int:
    return int(pid[1:]) - 1


def in_degrees(corpus: list[dict]) -> np.ndarray:
    cited = [index(c) for r in corpus for c in r["outbound_citations"]]
    return np.bincount(cited, minlength=len(corpus))


@pytest.mark.parametrize("contexts", [False, True])
def test_same_seed_same_bytes_other_seed_other_corpus(tmp_path, contexts):
    spec = SynthSpec(papers=1500, seed=11, contexts=contexts)
    first, again, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    generate(spec, first)
    generate(spec, again)
    generate(SynthSpec(papers=1500, seed=12, contexts=contexts), other)
    assert first.read_bytes() == again.read_bytes()
    assert first.read_bytes() != other.read_bytes()


def test_the_iterator_form_yields_what_is_written(tmp_path):
    spec = SynthSpec(papers=300, seed=5)
    generate(spec, tmp_path / "c.jsonl")
    written = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert written == list(records(spec))


def test_the_format_does_not_change_the_graph(tmp_path):
    """contexts=True only adds text: the citation graph and abstracts stay the same."""
    s2orc = list(records(SynthSpec(papers=800, seed=2)))
    generic = list(records(SynthSpec(papers=800, seed=2, contexts=True)))
    assert [r["outbound_citations"] for r in s2orc] == [[x["id"] for x in r["references"]] for r in generic]
    assert [r["abstract"] for r in s2orc] == [r["abstract"] for r in generic]


def test_s2orc_output_reads_without_problems(tmp_path):
    path = tmp_path / "s2orc.jsonl"
    generate(SynthSpec(papers=2000, seed=1), path)
    items = list(formats.get("s2orc").read(path))
    assert all(i.record is not None and i.problem is None for i in items)
    papers = [i.record for i in items]
    assert len(papers) == 2000 and all(isinstance(p, Paper) for p in papers)  # inbound lists stay empty
    assert papers[0].id == "S0000001" and papers[-1].id == paper_id(1999, 2000) == "S0002000"
    assert all(p.title and p.abstract and p.venue and p.authors and p.fields for p in papers)
    assert sum(len(p.references) for p in papers) > 2000 * 7  # fewer while topics are small
    assert any(p.arxiv_id for p in papers)
    assert len({p.arxiv_id for p in papers if p.arxiv_id}) == sum(1 for p in papers if p.arxiv_id)


def test_generic_output_reads_without_problems_and_carries_contexts(with_contexts):
    items = list(formats.get("jsonl").read(with_contexts))
    assert all(i.record is not None and i.problem is None for i in items)
    papers = [i.record for i in items]
    refs = [r for p in papers for r in p.references]
    assert len(papers) == 3000 and len(refs) > 3000 * 8
    assert all(r.contexts and r.n_contexts == len(r.contexts) for r in refs)
    assert all(
        c.count("[CIT]") == 1 and not c.startswith("[CIT]") and c.endswith(".") for r in refs for c in r.contexts
    )
    assert any(len(r.contexts) == 2 for r in refs)
    assert all(set(p.categories) <= set(FIELD_CATEGORIES[p.fields[0]]) for p in papers)
    assert all(bool(p.categories) == bool(p.arxiv_id) for p in papers)


def test_contexts_are_worded_like_the_cited_papers_topic(with_contexts):
    corpus = [json.loads(line) for line in with_contexts.read_text().splitlines()]
    topic = plan(SynthSpec(papers=3000, seed=3, contexts=True)).topic
    words_of: dict[int, Counter] = {}
    for i, r in enumerate(corpus):
        words_of.setdefault(int(topic[i]), Counter()).update(r["abstract"].lower().split())
    common = {w for w, _ in Counter(w for c in words_of.values() for w in c).items() if _ > len(words_of) // 2}
    vocabulary = {t: set(c) - common for t, c in words_of.items()}
    closer = total = 0
    for i, r in enumerate(corpus):
        for ref in r["references"]:
            cited = int(topic[index(ref["id"])])
            if cited == topic[i]:
                continue
            words = set(" ".join(ref["contexts"]).lower().replace(".", "").split())
            total += 1
            closer += len(words & vocabulary[cited]) > len(words & vocabulary[int(topic[i])])
    assert total > 1000 and closer / total > 0.9


def test_text_has_realistic_lengths(large):
    titles = [len(r["title"].split()) for r in large[:2000]]
    abstracts = [len(r["abstract"].split()) for r in large[:2000]]
    assert min(titles) >= 6 and max(titles) <= 14
    assert min(abstracts) >= 100 and max(abstracts) <= 250
    assert large[0]["abstract"][0].isupper() and large[0]["abstract"].endswith(".")
    frequencies = Counter(w for r in large[:2000] for w in r["abstract"].lower().split())
    top = [n for _, n in frequencies.most_common(100)]
    assert top[0] > 10 * top[99]  # Zipf-like: a few words are very frequent


def test_papers_come_in_publication_order_with_growing_volume(large):
    years = [r["year"] for r in large]
    assert years == sorted(years)
    assert (LARGE.start_year, LARGE.end_year) == (years[0], years[-1])
    per_year = Counter(years)
    assert per_year[LARGE.end_year] > 4 * per_year[LARGE.start_year]


def test_citations_point_back_in_time_without_repeats(large):
    for i, r in enumerate(large):
        cited = [index(c) for c in r["outbound_citations"]]
        assert len(set(cited)) == len(cited)
        assert all(c < i and large[c]["year"] <= r["year"] for c in cited)
        assert r["inbound_citations"] == []
    counts = [len(r["outbound_citations"]) for r in large]
    assert 8.5 < np.mean(counts) <= LARGE.citations_per_paper
    assert np.std(counts) > 4  # references per paper vary, as in real corpora


@pytest.mark.parametrize("p_same", [0.8, 0.3])
def test_citations_favour_the_citing_papers_topic(large, p_same):
    spec = LARGE if p_same == LARGE.p_same_topic else SynthSpec(papers=5000, seed=8, p_same_topic=p_same)
    corpus = large if spec is LARGE else list(records(spec))
    topic = plan(spec).topic
    pairs = [(i, index(c)) for i, r in enumerate(corpus) for c in r["outbound_citations"]]
    same = np.mean([topic[a] == topic[b] for a, b in pairs])
    assert abs(same - p_same) < 0.03


def test_in_degrees_are_heavy_tailed(large):
    degrees = np.sort(in_degrees(large))[::-1]
    mean = degrees.mean()
    top = degrees[: len(degrees) // 100].sum() / degrees.sum()
    assert degrees[0] > 20 * mean  # recent draws alone (p_recent=1) stay below 8 × the mean
    assert top > 0.12  # uniform attachment would give the top 1% about 3%
    assert (degrees >= 5 * mean).mean() > 0.01  # a tail Poisson-like counts would not have
    assert (degrees < mean).mean() > 0.65  # and most papers are cited less than the average


def reference_ages(corpus: list[dict]) -> np.ndarray:
    return np.array([r["year"] - corpus[index(c)]["year"] for r in corpus for c in r["outbound_citations"]])


def test_references_are_mostly_recent(large):
    """Real corpora cite mostly recent work (median reference age about 5-8 years)."""
    ages = reference_ages(large)
    assert 4 <= np.median(ages) <= 8
    assert 6 <= ages.mean() <= 12
    assert (ages > 20).mean() > 0.03  # yet old classics are still cited


@pytest.mark.parametrize("p_recent", [0.0, 1.0])
def test_recency_and_attachment_shape_the_graph(p_recent):
    """p_recent=1 cites only recent papers and levels in-degrees; p_recent=0 is pure
    preferential attachment, without aging: old references and a heavy tail."""
    spec = SynthSpec(papers=5000, seed=9, p_recent=p_recent)
    corpus = list(records(spec))
    ages, degrees = reference_ages(corpus), in_degrees(corpus)
    if p_recent:
        assert (ages <= spec.recent_years).mean() > 0.95  # the rest: no recent paper to cite
        assert degrees.max() < 8 * degrees.mean()
    else:
        assert np.median(ages) >= 10
        assert degrees.max() > 20 * degrees.mean()


def test_fields_and_categories_follow_the_topic(large):
    layout = plan(LARGE)
    assert {t.field for t in layout.topics} == set(MAG_FIELDS)  # 50 topics cover all 19 fields
    assert all(
        1 <= len(t.categories) <= 2 and set(t.categories) <= set(FIELD_CATEGORIES[t.field]) for t in layout.topics
    )
    second = 0
    for r, t in zip(large, layout.topic):
        topic = layout.topics[t]
        assert r["mag_field_of_study"] in ([topic.field], [topic.field, topic.second_field])
        assert r["venue"] in topic.venues
        second += len(r["mag_field_of_study"]) == 2
        assert (r["arxiv_id"] is not None) <= (r["year"] >= 2007)
    assert 0.15 < second / len(large) < 0.25


def test_categories_are_real_arxiv_codes():
    table = shared("taxonomy/arxiv_categories.tsv").read_text().splitlines()
    known = {line.split("\t")[0] for line in table[1:]}
    assert {c for codes in FIELD_CATEGORIES.values() for c in codes} <= known
    assert set(FIELD_CATEGORIES) == set(MAG_FIELDS)


def test_edge_cases():
    assert [r["outbound_citations"] for r in records(SynthSpec(papers=1))] == [[]]
    assert all(r["outbound_citations"] == [] for r in records(SynthSpec(papers=200, citations_per_paper=0)))
    one_topic = list(records(SynthSpec(papers=500, topics=1, seed=4)))
    assert sum(len(r["outbound_citations"]) for r in one_topic) > 500 * 5
    one_year = list(records(SynthSpec(papers=500, seed=4, start_year=2000, end_year=2000, recent_years=0)))
    assert sum(len(r["outbound_citations"]) for r in one_year) > 500 * 5
    for bad in (
        dict(papers=0),
        dict(papers=5, p_same_topic=1.5),
        dict(papers=5, start_year=2000, end_year=1999),
        dict(papers=5, p_recent=-0.1),
        dict(papers=5, recent_years=-1),
        dict(papers=5, recent_years=2.5),
    ):
        with pytest.raises(ValueError):
            SynthSpec(**bad)


def test_openalex_output_is_the_same_corpus(tmp_path):
    """The OpenAlex layout reads back (through the real reader) as the S2ORC one does, ids aside."""
    spec = SynthSpec(papers=1500, seed=4)
    generate(spec, tmp_path / "s2orc.jsonl")
    stats = generate_openalex(spec, tmp_path / "snapshot", part_size=600)
    fmt = formats.get("openalex")
    files = fmt.files(tmp_path / "snapshot" / "data" / "works" / "manifest")
    assert [f.name for f in files] == ["part_000.gz", "part_001.gz", "part_002.gz"]
    works = [i.record for f in files for i in fmt.read(f)]
    papers = [i.record for i in formats.get("s2orc").read(tmp_path / "s2orc.jsonl")]
    assert stats.papers == len(works) == len(papers) == 1500
    for work, paper in zip(works, papers):
        assert work.id == "W" + paper.id[1:]
        assert (work.title, work.abstract, work.year, work.venue, work.arxiv_id, work.fields) == (
            paper.title,
            paper.abstract,
            paper.year,
            paper.venue,
            paper.arxiv_id,
            paper.fields,
        )
        assert [r.cited_id[1:] for r in work.references] == [r.cited_id[1:] for r in paper.references]
        assert [a.id for a in work.authors] == [a.id for a in paper.authors]
    hidden = plan(spec).topic
    for i, work in enumerate(works):  # the hidden topic as primary, under the work's MAG home field's name
        primary, second = work.topics
        assert (primary.topic_id, primary.primary, second.primary) == (f"T{10000 + hidden[i]}", True, False)
        assert primary.lineage[1].name == work.fields[0] and primary.lineage[1].level == "field"
    subfields = {link.lineage[2].id: link.lineage[1].id for work in works for link in work.topics}
    assert all(sub.removeprefix("subfields/")[:2] == field.removeprefix("fields/") for sub, field in subfields.items())
