// A snapshot restates a work whole: its fields, categories and authorships are dropped
// before the newer ones are written, and an author left without papers goes, as a fresh
// ingest of the newer state would never have created it. Properties the newer state
// lacks are removed (citation_count is the ingest's, eligible the prefilter's, ingested the
// date of the run that first made the paper: a restatement keeps it).
// $rows: list — of {id: string}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
SET p = {id: p.id, citation_count: p.citation_count, ingested: p.ingested}
WITH p
OPTIONAL MATCH (p)-[link:IN_FIELD|IN_CATEGORY]->()
DELETE link
WITH DISTINCT p
OPTIONAL MATCH (a:Author)-[w:WROTE]->(p)
DELETE w
WITH DISTINCT a
WHERE a IS NOT NULL AND NOT EXISTS { (a)-[:WROTE]->() }
DELETE a
