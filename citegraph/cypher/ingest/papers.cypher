// Upserts papers by id and sets the properties the source gave (absent ones are kept).
// A paper first seen as a cited :External stub becomes a full paper. New papers start
// with citation_count 0; ingest keeps it equal to the inbound CITES count. A paper created
// or upgraded here is stamped with the run's date, which later runs keep.
// $rows: list — of {id: string, props: map}
// $ingested: string — the ingest run's date, YYYY-MM-DD
// Returns: nothing.
UNWIND $rows AS row
MERGE (p:Paper {id: row.id})
ON CREATE SET p.citation_count = 0, p.ingested = $ingested
SET p += row.props
WITH p WHERE p:External
REMOVE p:External
SET p.ingested = $ingested
