// Ego-network enrichment (SymTax's Enricher): the papers that the prefetched candidates
// cite (1-hop outgoing neighbours; papers citing a candidate are not followed), with how
// many candidates cite each, most frequent first. The caller keeps candidates ∪ the top.
// A held-out view (local citation recommendation) expands only the candidates that are
// not held-out citing papers, so no held-out citation is reached through enrichment.
// $ids: list — the candidates to expand (all of them, or those the view shows)
// $candidates: list — every prefetched candidate (never returned as a neighbour)
// $exclude: string — a paper never returned (a query's citing paper), or null
// $max_year: int — neighbours published after this year are left out (undated ones kept), or null
// $as_of: int — only candidates published in this year or before are expanded (a later
//   paper's citations are no evidence as of then; undated ones are not expanded), or null for all
// $with_text: bool — only neighbours with a title or an abstract
// $limit: int — how many neighbours at most
// Returns: ids, frequencies — one row: the neighbours not among the candidates, by frequency
// (high first), then id, and how many candidates cite each (one row of two lists ships in
// a fraction of the client time of a row per neighbour).
UNWIND $ids AS id
MATCH (c:Paper {id: id})-[:CITES]->(n:Paper)
WHERE ($as_of IS NULL OR c.year <= $as_of) AND NOT n.id IN $candidates AND ($exclude IS NULL OR n.id <> $exclude)
  AND ($max_year IS NULL OR n.year IS NULL OR n.year <= $max_year)
  AND (NOT $with_text OR trim(coalesce(n.title, '')) + trim(coalesce(n.abstract, '')) <> '')
WITH n.id AS id, count(DISTINCT c) AS frequency
ORDER BY frequency DESC, id
LIMIT $limit
RETURN collect(id) AS ids, collect(frequency) AS frequencies
