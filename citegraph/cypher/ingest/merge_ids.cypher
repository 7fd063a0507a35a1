// Merged ids (OpenAlex's merged_ids): a work absorbed by another. The citations made to the
// old id are moved to the id it was merged into (a stub if that is not in the graph), the
// old work and its own citations go, and every citation_count stays exact, as does the
// cited_ids of every paper that cited the old work (as ingest/cited_ids sets it).
// $rows: list — of {id: string, into: string}: the merged id and the one it was merged into
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (old:Paper {id: row.id})
MERGE (into:Paper {id: row.into})
ON CREATE SET into:External, into.citation_count = 0
WITH old, into
OPTIONAL MATCH (citing:Paper)-[c:CITES]->(old)
FOREACH (_ IN CASE WHEN citing IS NULL OR citing = into THEN [] ELSE [1] END |
  MERGE (citing)-[moved:CITES]->(into)
  ON CREATE SET into.citation_count = into.citation_count + 1
  SET moved += properties(c))
WITH old, citing, COLLECT { MATCH (citing)-[:CITES]->(n:Paper) WHERE n <> old RETURN n.id AS cited ORDER BY cited } AS ids
SET citing.cited_ids = CASE WHEN ids = [] THEN null ELSE ids END
WITH DISTINCT old
OPTIONAL MATCH (old)-[own:CITES]->(cited:Paper)
SET cited.citation_count = cited.citation_count - 1
WITH DISTINCT old
DETACH DELETE old
