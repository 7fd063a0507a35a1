// Removes the nodes of OpenAlex's topic tree above which no topic is left (after
// ingest/restate_topics): the tree holds what the works name, as a fresh ingest builds it.
// A node with a topic below keeps every node on that topic's path, so the order in which
// the nodes are looked at does not matter. Cheap: the tree has about 280 inner nodes.
// Mode: write
// Returns: nothing.
MATCH (up:Topic)
WHERE up.level <> 'topic' AND NOT EXISTS { (:Topic {level: 'topic'})-[:BROADER_TOPIC*1..3]->(up) }
DETACH DELETE up
