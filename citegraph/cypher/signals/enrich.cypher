// Ego-network enrichment (SymTax's Enricher): the papers that the prefetched candidates
// cite (1-hop outgoing neighbours; papers citing a candidate are not followed), read from
// each candidate's cited_ids, the list the ingest keeps equal to its CITES edges
// (ingest/cited_ids). Following the edges read each of the ~1,000 cited papers' records
// for its id, and those reads grew with the store (2M papers: 1.5× the 200k graph's time;
// benchmarks/README.md); the lists are read with the candidates' own records. The caller
// counts how many candidates cite each paper, leaves out the candidates and the excluded
// paper, and keeps the most frequent. A filter on the neighbours (a year, a text) reads
// their records: signals/enrich_filtered.
// A held-out view (local citation recommendation) expands only the candidates that are
// not held-out citing papers, so no held-out citation is reached through enrichment.
// $ids: list — the candidates to expand (all of them, or those the view shows)
// $as_of: int — only candidates published in this year or before are expanded (a later
//   paper's citations are no evidence as of then; undated ones are not expanded), or null for all
// Mode: read
// Returns: cited — one row: per expanded candidate citing any paper, the ids of the papers it cites.
UNWIND $ids AS id
MATCH (c:Paper {id: id})
WHERE $as_of IS NULL OR c.year <= $as_of
RETURN collect(c.cited_ids) AS cited
