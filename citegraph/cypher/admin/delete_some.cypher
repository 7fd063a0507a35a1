// Deletes up to $limit nodes with their relationships (used to empty the graph in
// batches: one DETACH DELETE over millions of elements deadlocks or runs out of memory).
// $limit: int — at most this many nodes
// Mode: write
// Returns: deleted: the number of nodes deleted (0 when the graph is empty).
MATCH (n)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
