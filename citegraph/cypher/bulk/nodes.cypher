// Every node with its labels and properties, streamed: a whole-graph dump for checking
// that a bulk load built the graph the streaming ingest builds.
// Mode: read
// Returns: labels (sorted), props: the node's property map.
MATCH (n)
WITH n, labels(n) AS found
UNWIND found AS label
WITH n, label ORDER BY label
RETURN collect(label) AS labels, properties(n) AS props
