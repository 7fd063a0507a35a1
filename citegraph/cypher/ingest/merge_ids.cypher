// Merged ids (OpenAlex's merged_ids): a work absorbed by another. The citations made to the
// old id are moved to the id it was merged into (a stub if that is not in the graph), the
// old work and its own citations go, and every citation_count stays exact. The papers that
// cited the old work are returned: the ingest sets their cited_ids again in the same
// transaction (ingest/cited_lists, ingest/cited_ids).
// $rows: list — of {id: string, into: string}: the merged id and the one it was merged into
// Mode: write
// Returns: citing: list of string, the papers that cited a merged work (a row for each merged work found).
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
WITH old, collect(DISTINCT citing.id) AS citing
OPTIONAL MATCH (old)-[own:CITES]->(cited:Paper)
SET cited.citation_count = cited.citation_count - 1
WITH DISTINCT old, citing
DETACH DELETE old
RETURN citing
