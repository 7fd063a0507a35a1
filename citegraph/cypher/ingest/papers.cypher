// Upserts papers by id and sets the properties the source gave (absent ones are kept).
// A paper first seen as a cited :External stub becomes a full paper. New papers start
// with citation_count row.count: 0, or null (none) for a paper the ingest recounts at the
// end (on ArcadeDB, replacing one of the many 0s in the citation_count index costs a scan
// of them); ingest keeps it equal to the inbound CITES count. A paper created or upgraded
// here is stamped with the run's date, which later runs keep.
// $rows: list — of {id: string, props: map, count: 0 or null}
// $ingested: string — the ingest run's date, YYYY-MM-DD
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MERGE (p:Paper {id: row.id})
ON CREATE SET p.citation_count = row.count, p.ingested = $ingested
SET p += row.props
WITH p WHERE p:External
REMOVE p:External
SET p.ingested = $ingested
