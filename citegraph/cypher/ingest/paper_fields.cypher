// Links papers to their MAG fields of study, creating a field not seen before.
// $rows: list — of {id: paper id, names: list of field names}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
UNWIND row.names AS name
MERGE (f:Field {name: name})
MERGE (p)-[:IN_FIELD]->(f)
