// Links papers to their OpenAlex topics, with the topic's score for the paper and whether
// it is the paper's primary topic (the tree nodes come from ingest/topics, same batch).
// $rows: list — of {id: paper id, topics: list of {id: topic id, props: map of the IN_TOPIC
//   properties of the graph model}}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
UNWIND row.topics AS link
MERGE (t:Topic {id: link.id})
MERGE (p)-[r:IN_TOPIC]->(t)
SET r += link.props
