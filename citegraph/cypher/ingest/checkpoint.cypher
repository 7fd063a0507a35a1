// Reads the resume point of one input file: the last line whose records are committed.
// Checkpoints live in the graph they describe, so wiping the graph also forgets them.
// $key: string — format, path, size and modification time of the file
// Mode: read
// Returns: line: int, done: bool (no row if the file was never ingested).
MATCH (c:IngestCheckpoint {key: $key})
RETURN c.line AS line, c.done AS done
