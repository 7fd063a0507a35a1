// Deletes up to $limit :External stubs with their citations (the 'drop' policy for
// papers cited but absent from the corpus), recounts citation_count of the papers the
// deleted stubs cited and sets cited_ids again on the papers that cited them (as
// ingest/cited_ids does). Run until it returns 0: one DETACH DELETE of millions of
// elements can exhaust the transaction or deadlock.
// $limit: int — at most this many stubs per call
// Mode: write
// Returns: deleted: the number of stubs deleted.
MATCH (p:Paper:External)
WITH p LIMIT $limit
OPTIONAL MATCH (p)-[:CITES]->(q:Paper)
WHERE NOT q:External
WITH collect(DISTINCT p) AS stubs, collect(DISTINCT q) AS cited
CALL (stubs) {
  UNWIND stubs AS s
  MATCH (r:Paper)-[:CITES]->(s)
  WHERE NOT r:External
  RETURN collect(DISTINCT r) AS citing
}
FOREACH (s IN stubs | DETACH DELETE s)
FOREACH (q IN cited | SET q.citation_count = COUNT { (q)<-[:CITES]-() })
WITH stubs, citing
CALL (citing) {
  UNWIND citing AS r
  WITH r, COLLECT { MATCH (r)-[:CITES]->(n:Paper) RETURN n.id AS cited ORDER BY cited } AS ids
  SET r.cited_ids = CASE WHEN ids = [] THEN null ELSE ids END
}
RETURN size(stubs) AS deleted
