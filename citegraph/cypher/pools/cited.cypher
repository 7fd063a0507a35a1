// The relevant documents of each query: the corpus papers with a title it cites.
// $ids: list — query paper ids
// Mode: read
// Returns: query, cited — one row per citation, by query then cited id.
UNWIND $ids AS id
MATCH (q:Paper {id: id})-[:CITES]->(c:Paper)
WHERE NOT c:External AND trim(coalesce(c.title, '')) <> ''
RETURN q.id AS query, c.id AS cited
ORDER BY query, cited
