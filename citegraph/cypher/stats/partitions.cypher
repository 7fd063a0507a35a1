// The dated partitions (OpenAlex's updated_date=…) whose files an ingest completed: the
// newest is the date of the snapshot the graph holds.
// Mode: read
// Returns: partition, files — one row per partition, oldest first.
MATCH (c:IngestCheckpoint)
WHERE c.done AND c.file CONTAINS 'updated_date='
WITH split(split(c.file, 'updated_date=')[1], '/')[0] AS partition
RETURN partition, count(*) AS files
ORDER BY partition
