// A snapshot restates a work whole (OpenAlex's updated partitions): its outgoing CITES to
// papers no longer in its reference list are deleted and their citation_count lowered, so
// the graph equals a fresh ingest of the newer state. A stub left cited by nobody goes.
// $rows: list — of {id: string, references: list of string}: the work and its current references
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[c:CITES]->(gone:Paper)
WHERE NOT gone.id IN row.references
SET gone.citation_count = gone.citation_count - 1
DELETE c
WITH DISTINCT gone
WHERE gone:External AND gone.citation_count = 0
DETACH DELETE gone
