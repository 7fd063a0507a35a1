// Year and fields of the given papers (queries' metadata for the pool manifests).
// $ids: list — paper ids
// Mode: read
// Returns: id, year, fields — one row per paper found, by id.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
RETURN p.id AS id, p.year AS year, [(p)-[:IN_FIELD]->(f:Field) | f.name] AS fields
ORDER BY id
