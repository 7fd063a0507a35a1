// Upserts MAG top-level fields of study.
// $rows: list — of {name}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MERGE (:Field {name: row.name})
