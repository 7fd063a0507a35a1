// Upserts MAG top-level fields of study.
// Parameters: $rows: list of {name}.
// Returns: nothing.
UNWIND $rows AS row
MERGE (:Field {name: row.name})
