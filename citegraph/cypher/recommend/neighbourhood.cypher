// The seed's graph neighbourhood in one statement: every paper linked to the seed's
// references, by kind of link —
//   'cited_by':   papers the references cite (counts: how many references cite each),
//   'coupling':   papers citing the references (counts: how many of them each cites),
//   'cocitation': papers cited together with a reference (not the reference itself: a draft's
//                 reference may be a candidate) by a paper other than the seed, stubs included
//                 (counts: (citing paper, reference) pairs; citers: distinct citing papers).
// A hub reference (many citing papers) is followed for coupling and co-citation through
// its first $fanout citing papers only (in the graph's storage order, so the same for the
// same database), which bounds the cost of a seed citing much-cited papers: a subquery
// with LIMIT stops there, where a list of all citing papers cut to $fanout visited every
// one (2M papers: this statement's p50 28 → 17 ms, 17 at 200k; the same rows).
// As of a year ($as_of), a citation counts only if the citing paper is of that year or
// earlier (undated citing papers do not count): the view a reader had then.
// One row per kind with parallel lists (far cheaper to ship than a row per paper); the
// caller ranks and cuts each kind, and reads every feature the recommender takes from the
// references (co-citation, coupling, cited-by, the MDCR overlap) from these lists.
// Co-citation is most of the cost (about ten paths per citing paper followed): it reads
// each citing paper's cited_ids rather than the co-cited papers' records — a seed co-cites
// thousands of papers, whose records were random reads in a store ten times larger at 2M
// papers than at 200k (the statement 8.4 ms at both sizes, from 12.9 and 15.1 ms through the
// edges; the same recommendations). So its ids include :External stubs: the caller tells
// them by their facts. Its papers are filtered after they are counted (once per paper instead of once
// per path), and $cocitation false leaves it out (the recommender's negative seeds need
// only citations both ways).
// $refs: list — the seed's reference ids
// $exclude: list — ids never returned (the seed, its blocked references, its negatives)
// $seed: string — the seed paper id ('' for a paper not in the graph)
// $fanout: int — at most this many citing papers of one reference are followed (coupling, co-citation)
// $as_of: int — only citations made in this year or before count, or null for all
// $cocitation: bool — whether to follow co-citation (false: no 'cocitation' row)
// Mode: read
// Returns: kind, ids, counts, citers, via (per paper up to 5 reference ids; empty for 'cocitation') — a kind with no paper may have no row.
UNWIND $refs AS rid
MATCH (r:Paper {id: rid})-[:CITES]->(c:Paper)
WHERE NOT c:External AND NOT c.id IN $exclude AND ($as_of IS NULL OR r.year <= $as_of)
WITH c, collect(DISTINCT r.id) AS via
RETURN 'cited_by' AS kind, collect(c.id) AS ids, collect(size(via)) AS counts, collect(size(via)) AS citers,
       collect(via[..5]) AS via
UNION ALL
UNWIND $refs AS rid
MATCH (r:Paper {id: rid})
CALL (r) {
  MATCH (r)<-[:CITES]-(x:Paper)
  WHERE NOT x:External AND NOT x.id IN $exclude AND ($as_of IS NULL OR x.year <= $as_of)
  RETURN x AS c
  LIMIT $fanout
}
WITH c, collect(DISTINCT r.id) AS via
RETURN 'coupling' AS kind, collect(c.id) AS ids, collect(size(via)) AS counts, collect(size(via)) AS citers,
       collect(via[..5]) AS via
UNION ALL
UNWIND CASE WHEN $cocitation THEN $refs ELSE [] END AS rid
MATCH (r:Paper {id: rid})
CALL (r) {
  MATCH (r)<-[:CITES]-(x:Paper)
  WHERE x.id <> $seed AND ($as_of IS NULL OR x.year <= $as_of)
  RETURN x
  LIMIT $fanout
}
UNWIND x.cited_ids AS cited
WITH rid, x, cited WHERE cited <> rid
WITH cited, count(*) AS paths, count(DISTINCT x) AS citers
WHERE NOT cited IN $exclude
RETURN 'cocitation' AS kind, collect(cited) AS ids, collect(paths) AS counts, collect(citers) AS citers, [] AS via
