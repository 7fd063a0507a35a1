// Ego-network enrichment (SymTax's Enricher): the papers that the prefetched candidates
// cite (1-hop outgoing neighbours; papers citing a candidate are not followed). The caller
// counts how many candidates cite each, leaves out the candidates and the excluded paper,
// and keeps the most frequent: grouping ~1,000 rows by neighbour and testing each against
// a 100-id list cost the server three times the traversal (benchmarks/README.md, pools.py).
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
