// OpenAlex's topic tree in the graph: how many nodes of each level (papers link to the
// topic level by IN_TOPIC, counted among the relationships).
// Mode: read
// Returns: level, count — one row per level present, domain first.
MATCH (t:Topic)
RETURN t.level AS level, count(*) AS count
ORDER BY CASE level WHEN 'domain' THEN 0 WHEN 'field' THEN 1 WHEN 'subfield' THEN 2 ELSE 3 END
