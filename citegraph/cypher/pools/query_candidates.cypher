// Papers that may serve as evaluation queries: eligible, published in $year, in field
// $field (any field when null), citing at least $min_cited corpus papers with a title
// (what the relevant documents of a query are: :External stubs have no text).
// $year: int — publication year of the queries
// $field: string — a MAG field name, or null for any
// $min_cited: int — minimum number of cited corpus papers
// Mode: read
// Returns: id, cited — one row per paper, by id.
MATCH (q:Paper)
WHERE q.eligible = true AND q.year = $year
  AND ($field IS NULL OR EXISTS { (q)-[:IN_FIELD]->(:Field {name: $field}) })
WITH q, COUNT { (q)-[:CITES]->(c:Paper) WHERE NOT c:External AND trim(coalesce(c.title, '')) <> '' } AS cited
WHERE cited >= $min_cited
RETURN q.id AS id, cited
ORDER BY id
