// Deletes up to $limit :External stubs with their citations (the 'drop' policy for
// papers cited but absent from the corpus), recounts citation_count of the papers the
// deleted stubs cited and returns the papers that cited them, whose cited_ids the ingest
// sets again in the same transaction (ingest/cited_lists, ingest/cited_ids). Run until it
// returns 0: one DETACH DELETE of millions of elements can exhaust the transaction or deadlock.
// $limit: int — at most this many stubs per call
// Mode: write
// Returns: deleted: the number of stubs deleted; citing: list of string, the papers (not stubs) that cited them.
MATCH (p:Paper:External)
WITH p LIMIT $limit
OPTIONAL MATCH (p)-[:CITES]->(q:Paper)
WHERE NOT q:External
WITH collect(DISTINCT p) AS stubs, collect(DISTINCT q) AS cited
CALL (stubs) {
  UNWIND stubs AS s
  MATCH (r:Paper)-[:CITES]->(s)
  WHERE NOT r:External
  RETURN collect(DISTINCT r.id) AS citing
}
FOREACH (s IN stubs | DETACH DELETE s)
FOREACH (q IN cited | SET q.citation_count = COUNT { (q)<-[:CITES]-() })
RETURN size(stubs) AS deleted, citing
