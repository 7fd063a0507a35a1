// Upserts MAG top-level fields of study.
// $rows: list — of {name}
// Returns: nothing.
UNWIND $rows AS row
MERGE (:Field {name: row.name})
