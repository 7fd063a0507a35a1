// Upserts nodes of OpenAlex's topic tree (domain, field, subfield, topic: one :Topic label,
// told apart by level) and links each to the node above it. A node given another parent
// than the one it had is moved: the older BROADER_TOPIC goes, so the tree stays a tree.
// $rows: list — of {id, props: map of the Topic properties of the graph model (absent ones
//   are kept), broader: id of the node above, or null (a domain)}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MERGE (t:Topic {id: row.id})
SET t += row.props
WITH t, row
WHERE row.broader IS NOT NULL
MERGE (b:Topic {id: row.broader})
MERGE (t)-[:BROADER_TOPIC]->(b)
WITH t, b
MATCH (t)-[old:BROADER_TOPIC]->(other:Topic)
WHERE other <> b
DELETE old
