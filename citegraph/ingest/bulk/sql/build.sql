-- The bulk build: the graph of the spill files, in DuckDB tables the loaders read.
-- Reads: the spill files of citegraph.ingest.bulk.duckdb_build.Spill, newline-delimited JSON, one per kind
--   of row ($papers, $authors, ...), ids as the records give them, `s` the row's place in the
--   input (record order), `p` a JSON object of the element's properties (the graph model's).
-- Writes: vertex(idx, grp, space, key, row JSON), edge(grp, src, dst, props JSON) (src, dst:
--   vertex.idx), restated(id) (works stated twice by snapshots).
-- Parameters: the spill paths, $keep_stubs (external='keep'), $min_abstract, $min_citations.
-- Merges follow the Cypher of the streaming ingest: a node's properties as successive
-- `SET n += props` leave them (per key, the last value given), an author's as ON CREATE SET
-- (the first), a CITES edge's per key the last value given, a WROTE's the last position.

-- name: read
CREATE TABLE paper_rec AS SELECT * FROM read_json($papers, format = 'newline_delimited',
    columns = {s: 'BIGINT', id: 'VARCHAR', snapshot: 'BOOLEAN', p: 'JSON', year: 'BOOLEAN', title: 'BOOLEAN', abstract: 'BIGINT'});
CREATE TABLE author_rec AS SELECT * FROM read_json($authors, format = 'newline_delimited',
    columns = {s: 'BIGINT', id: 'VARCHAR', p: 'JSON'});
CREATE TABLE cite_rec AS SELECT * FROM read_json($cites, format = 'newline_delimited',
    columns = {s: 'BIGINT', citing: 'VARCHAR', cited: 'VARCHAR', p: 'JSON'});
CREATE TABLE wrote_rec AS SELECT * FROM read_json($wrote, format = 'newline_delimited',
    columns = {s: 'BIGINT', author: 'VARCHAR', paper: 'VARCHAR', position: 'BIGINT'});
-- nodes met by key only (a field, a category, a concept, a topic named by something else)
CREATE TABLE key_rec AS SELECT * FROM read_json($keys, format = 'newline_delimited',
    columns = {s: 'BIGINT', space: 'VARCHAR', key: 'VARCHAR', p: 'JSON', merge: 'BOOLEAN'});
-- relationships between nodes met by key: IN_FIELD, IN_CATEGORY, BROADER, MAPS_TO, BROADER_TOPIC, IN_TOPIC
CREATE TABLE link_rec AS SELECT * FROM read_json($links, format = 'newline_delimited',
    columns = {s: 'BIGINT', type: 'VARCHAR', source: 'VARCHAR', target: 'VARCHAR', p: 'JSON'});

-- name: papers
-- Aggregated without the property maps, which are then joined by the first record's `s`:
-- the aggregate's groups stay small, texts are not carried through it.
CREATE TABLE paper AS
SELECT a.*, r.p FROM (
    SELECT id, min(s) AS first, count(*) AS records,
           coalesce(bool_or(year), false) AS has_year,            -- a year once given stays
           coalesce(arg_max(title, s), false) AS has_title,       -- the last title given: not blank
           coalesce(arg_max(abstract, s), 0) AS abstract_length,  -- the last abstract given
           count(*) FILTER (WHERE snapshot) > CASE WHEN arg_min(snapshot, s) THEN 1 ELSE 0 END AS restated
    FROM paper_rec GROUP BY id) a
JOIN paper_rec r ON r.s = a.first;

-- name: restated
SELECT id FROM paper WHERE restated ORDER BY first LIMIT 1;

-- name: repeated
-- Every element given by more than one record with properties: (kind, k1, k2, s, p).
CREATE TABLE repeated_rec AS
SELECT 'Paper' AS kind, id AS k1, '' AS k2, s, p FROM paper_rec WHERE id IN (SELECT id FROM paper WHERE records > 1)
UNION ALL
SELECT 'CITES', citing, cited, s, p FROM cite_rec
WHERE p IS NOT NULL AND (citing, cited) IN (
    SELECT (citing, cited) FROM cite_rec WHERE p IS NOT NULL GROUP BY citing, cited HAVING count(*) > 1)
UNION ALL
SELECT space, key, '', s, p FROM key_rec
WHERE merge AND p IS NOT NULL AND (space, key) IN (
    SELECT (space, key) FROM key_rec WHERE merge AND p IS NOT NULL GROUP BY space, key HAVING count(*) > 1);
CREATE TABLE merged AS
SELECT kind, k1, k2, json_group_object(name, value) AS p FROM (
    SELECT kind, k1, k2, name, arg_max(value, s) AS value
    FROM (SELECT kind, k1, k2, s, name, p -> name AS value
          FROM (SELECT kind, k1, k2, s, p, unnest(json_keys(p)) AS name FROM repeated_rec))
    GROUP BY kind, k1, k2, name)
GROUP BY kind, k1, k2;

-- name: cites
-- One CITES per (citing, cited); with external='drop' none to or from a stub.
CREATE TABLE cites AS
SELECT citing, cited, min(s) AS first, count(p) AS with_props, arg_max(p, s) AS last_p
FROM cite_rec GROUP BY citing, cited;
CREATE TABLE stub AS
SELECT id, min(first) AS first FROM (
    SELECT citing AS id, 2 * first AS first FROM cites UNION ALL SELECT cited, 2 * first + 1 FROM cites) AS ends
ANTI JOIN paper USING (id) GROUP BY id;
CREATE TABLE kept_cites AS
SELECT citing, cited FROM cites
WHERE $keep_stubs OR (citing IN (SELECT id FROM paper) AND cited IN (SELECT id FROM paper));
CREATE TABLE citation_count AS SELECT cited AS id, count(*) AS n FROM kept_cites GROUP BY cited;
CREATE TABLE cited_ids AS SELECT citing AS id, list(cited ORDER BY cited) AS ids FROM kept_cites GROUP BY citing;

-- name: vertices
-- A node's index: twice the place of the first row that names it (a stub's: the reference's,
-- plus one on the cited side), unique without a row_number() over all nodes, which would
-- sort them all in memory. The order of the loads does not matter.
CREATE TABLE vertex AS
SELECT p.first * 2 AS idx, 'paper' AS grp, 'Paper' AS space, p.id AS key,
       json_merge_patch(coalesce(m.p, p.p), json_object(
           'citation_count', coalesce(c.n, 0),
           'cited_ids', l.ids,  -- null (no citations) patches the key away: unset, as ingest/cited_ids leaves it
           'eligible', p.has_year AND p.has_title AND p.abstract_length >= $min_abstract
                       AND coalesce(c.n, 0) >= $min_citations)) AS row
FROM paper p LEFT JOIN citation_count c USING (id) LEFT JOIN cited_ids l USING (id)
LEFT JOIN merged m ON m.kind = 'Paper' AND m.k1 = p.id
UNION ALL
SELECT s.first, 'stub', 'Paper', s.id,
       json_merge_patch(json_object('id', s.id, 'citation_count', coalesce(c.n, 0), 'eligible', false),
                        json_object('cited_ids', l.ids))
FROM stub s LEFT JOIN citation_count c USING (id) LEFT JOIN cited_ids l USING (id) WHERE $keep_stubs
UNION ALL
SELECT min(s) * 2, 'author', 'Author', id, arg_min(p, s) FROM author_rec GROUP BY id
UNION ALL
SELECT k.first * 2, k.space, k.space, k.key,
       json_merge_patch(json_object(CASE k.space WHEN 'Topic' THEN 'id' WHEN 'Field' THEN 'name' ELSE 'code' END, k.key),
                        coalesce(m.p, k.p, '{}'))
FROM (SELECT space, key, min(s) AS first,
             arg_max(p, s) AS p  -- the last properties given (a category's replace, the others' merge)
      FROM key_rec GROUP BY space, key) k
LEFT JOIN merged m ON m.kind = k.space AND m.k1 = k.key;

-- name: edges
CREATE TABLE edge AS
SELECT CASE WHEN c.with_props = 0 THEN 'cites' ELSE 'cites_with_contexts' END AS grp,
       a.idx AS src, b.idx AS dst,
       CASE WHEN c.with_props > 1 THEN m.p ELSE c.last_p END AS props
FROM cites c
JOIN vertex a ON a.space = 'Paper' AND a.key = c.citing
JOIN vertex b ON b.space = 'Paper' AND b.key = c.cited
LEFT JOIN merged m ON c.with_props > 1 AND m.kind = 'CITES' AND m.k1 = c.citing AND m.k2 = c.cited
UNION ALL
SELECT 'wrote', a.idx, b.idx, json_object('position', w.position)
FROM (SELECT author, paper, arg_max(position, s) AS position FROM wrote_rec GROUP BY author, paper) w
JOIN vertex a ON a.space = 'Author' AND a.key = w.author
JOIN vertex b ON b.space = 'Paper' AND b.key = w.paper
UNION ALL
SELECT lower(l.type), a.idx, b.idx, l.p
FROM (SELECT type, source, arg_max(target, s) AS target, arg_max_null(p, s) AS p FROM link_rec
      GROUP BY type, source, CASE WHEN type = 'BROADER_TOPIC' THEN NULL ELSE target END) l  -- a topic's parent: the last given
JOIN vertex a ON a.space = CASE l.type WHEN 'IN_FIELD' THEN 'Paper' WHEN 'IN_CATEGORY' THEN 'Paper' WHEN 'IN_TOPIC' THEN 'Paper'
                                     WHEN 'MAPS_TO' THEN 'ArxivCategory' WHEN 'BROADER' THEN 'AcmConcept' ELSE 'Topic' END
             AND a.key = l.source
JOIN vertex b ON b.space = CASE l.type WHEN 'IN_FIELD' THEN 'Field' WHEN 'IN_CATEGORY' THEN 'ArxivCategory'
                                     WHEN 'MAPS_TO' THEN 'AcmConcept' WHEN 'BROADER' THEN 'AcmConcept' ELSE 'Topic' END
             AND b.key = l.target;

-- name: counts
SELECT grp, count(*) AS n FROM vertex GROUP BY grp UNION ALL SELECT grp, count(*) FROM edge GROUP BY grp;

-- name: stubs_found
SELECT count(*) FROM stub;

-- name: eligibility
-- What cypher/prefilter/counts.cypher answers of the loaded graph, counted where `vertices`
-- decided each paper's eligibility: the corpus papers (stubs are :External).
SELECT count(*) AS papers,
       count(*) FILTER (WHERE has_year) AS with_year,
       count(*) FILTER (WHERE has_title) AS with_title,
       count(*) FILTER (WHERE abstract_length >= $min_abstract) AS with_abstract,
       count(*) FILTER (WHERE coalesce(c.n, 0) >= $min_citations) AS with_citations,
       count(*) FILTER (WHERE has_year AND has_title AND abstract_length >= $min_abstract
                              AND coalesce(c.n, 0) >= $min_citations) AS eligible
FROM paper LEFT JOIN citation_count c USING (id);
