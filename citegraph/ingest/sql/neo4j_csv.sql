-- The neo4j-admin CSV parts of a built graph (citegraph/ingest/sql/build.sql's tables).
-- Reads: vertex, edge. Writes: one folder of CSV parts per label set or relationship group
--   (`data_N.csv`), a new part begun once one holds FILE_SIZE_BYTES: the rows stream through
--   (PARTITION_BY buffers every partition and ran out of a 2 GB limit at 2M papers).
-- Parameters (positional, in order): one property name per column `cell` reads, the group,
--   the folder, the bytes of a part. The column list is the graph model's: {cells} stands for one
--   `, cell(…, ?)` per property, filled in by citegraph.ingest.neo4j_admin (placeholders only).
-- A cell: a scalar's JSON text (strings unquoted, booleans true/false), an array's elements
-- joined by U+001F (an element holding it is refused), absent values and empty texts empty.

-- name: cell
CREATE OR REPLACE TEMP MACRO cell(j, k) AS CASE
    WHEN json_type(json_extract(j, k)) = 'ARRAY' THEN nullif(array_to_string(list_transform(
        from_json(json_extract(j, k), '["VARCHAR"]'),
        lambda e: CASE WHEN contains(e, chr(31))
                  THEN error('cannot export ' || to_json(left(e, 80)) || ' for neo4j-admin: it holds U+001F, the array delimiter')
                  ELSE e END), chr(31)), '')
    ELSE nullif(json_extract_string(j, k), '') END;

-- name: nodes
COPY (SELECT v.key{cells} FROM vertex v WHERE v.grp = ?)
TO ? (FORMAT csv, HEADER false, FILE_SIZE_BYTES ?);

-- name: relationships
COPY (SELECT a.key, b.key{cells}
      FROM edge e JOIN vertex a ON a.idx = e.src JOIN vertex b ON b.idx = e.dst WHERE e.grp = ?)
TO ? (FORMAT csv, HEADER false, FILE_SIZE_BYTES ?);
