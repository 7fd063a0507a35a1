// Ego-network enrichment (SymTax's Enricher) with a filter on the neighbours: the papers
// that the prefetched candidates cite, followed through their CITES edges, since a year
// or text filter reads each cited paper's record anyway (reading cited_ids and then
// checking the most frequent by id cost more: 5.4 ms against 3.7 for a BM25 top 100 at
// 200k papers, benchmarks/README.md); signals/enrich reads the lists when no filter is
// asked. The caller counts how many candidates cite each, as for signals/enrich.
// A held-out view (local citation recommendation) expands only the candidates that are
// not held-out citing papers, so no held-out citation is reached through enrichment.
// $ids: list — the candidates to expand (all of them, or those the view shows)
// $max_year: int — neighbours published after this year are left out (undated ones kept), or null
// $as_of: int — only candidates published in this year or before are expanded (a later
//   paper's citations are no evidence as of then; undated ones are not expanded), or null for all
// $with_text: bool — only neighbours with a title or an abstract
// Mode: read
// Returns: cited — one row: per expanded candidate, the distinct ids of the papers it cites
// (one row of lists ships in a fraction of the client time of a row per neighbour).
UNWIND $ids AS id
MATCH (c:Paper {id: id})-[:CITES]->(n:Paper)
WHERE ($as_of IS NULL OR c.year <= $as_of)
  AND ($max_year IS NULL OR n.year IS NULL OR n.year <= $max_year)
  AND (NOT $with_text OR trim(coalesce(n.title, '')) + trim(coalesce(n.abstract, '')) <> '')
WITH c, collect(DISTINCT n.id) AS cited
RETURN collect(cited) AS cited
