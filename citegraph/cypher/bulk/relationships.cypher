// Every relationship with its type, end keys (id, code or name of each end node) and
// properties, streamed: a whole-graph dump for checking a bulk load against a streaming one.
// Mode: read
// Returns: type, source, target, props: the relationship's property map.
MATCH (a)-[r]->(b)
RETURN type(r) AS type, coalesce(a.id, a.code, a.name) AS source, coalesce(b.id, b.code, b.name) AS target,
       properties(r) AS props
