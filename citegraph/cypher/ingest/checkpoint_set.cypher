// Records the resume point of one input file; written in the same transaction as the
// batch it follows, so a checkpoint never runs ahead of the data.
// Parameters: $key: string, $file: string, $line: int, $done: bool.
// Returns: nothing.
MERGE (c:IngestCheckpoint {key: $key})
SET c.file = $file, c.line = $line, c.done = $done
