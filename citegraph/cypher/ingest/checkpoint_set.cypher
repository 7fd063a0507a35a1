// Records the resume point of one input file; written in the same transaction as the
// batch it follows, so a checkpoint never runs ahead of the data.
// $key: string — see ingest/checkpoint
// $file: string — the file's path
// $line: int — last committed line
// $done: bool — the whole file is committed
// Mode: write
// Returns: nothing.
MERGE (c:IngestCheckpoint {key: $key})
SET c.file = $file, c.line = $line, c.done = $done
