// Forgets the resume points of the given input files (ingest --restart).
// $keys: list — checkpoint keys
// Mode: write
// Returns: nothing.
MATCH (c:IngestCheckpoint)
WHERE c.key IN $keys
DELETE c
