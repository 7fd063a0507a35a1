// Forgets the resume points of the given input files (ingest --restart).
// Parameters: $keys: list of strings.
// Returns: nothing.
MATCH (c:IngestCheckpoint)
WHERE c.key IN $keys
DELETE c
