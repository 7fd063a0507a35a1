// Sets each given paper's cited_ids to the ids of the papers it cites, sorted (unset when it
// cites none), as ingest/cited_lists read them from its CITES edges earlier in the same
// transaction: absolute, so a repeated or resumed batch gives the same list. The ingest runs
// both in the transaction that writes or restates the paper's citations, so the list never
// disagrees with the edges. The enrichment reads the list with the paper's record instead of
// reading each cited paper's (signals/enrich).
// $rows: list — of {id: string, cited: list of string}: a paper and the ids it cites, sorted
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
SET p.cited_ids = CASE WHEN row.cited = [] THEN null ELSE row.cited END
