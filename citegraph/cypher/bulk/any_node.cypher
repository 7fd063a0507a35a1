// Whether the graph holds any node at all: the bulk ingest loads only an empty graph.
// Stops at the first node, so it costs nothing on a large graph.
// Mode: read
// Returns: nodes: 0 or 1.
MATCH (n)
WITH n LIMIT 1
RETURN count(n) AS nodes
