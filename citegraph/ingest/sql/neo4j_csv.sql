-- The neo4j-admin CSV parts of a built graph (citegraph/ingest/sql/build.sql's tables).
-- Reads: vertex, edge. Writes: one folder of CSV parts per label set or relationship group
--   (COPY … PARTITION_BY: `part=N/data_*.csv`), split into parts by a hash of the node's
--   index or the relationship's ends (a row_number() over all of them would hold them all
--   in memory).
-- Parameters (positional, in order): one property name per column `cell` reads, the number
--   of parts, the group, the folder. The column list is the graph model's: {cells} stands for one
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
COPY (SELECT v.key{cells}, hash(v.idx) % ? AS part FROM vertex v WHERE v.grp = ?)
TO ? (FORMAT csv, HEADER false, PARTITION_BY (part));

-- name: relationships
COPY (SELECT a.key, b.key{cells}, hash(e.src, e.dst) % ? AS part
      FROM edge e JOIN vertex a ON a.idx = e.src JOIN vertex b ON b.idx = e.dst WHERE e.grp = ?)
TO ? (FORMAT csv, HEADER false, PARTITION_BY (part));
