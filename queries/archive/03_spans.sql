-- spans (with an archive): the hot `spans` table and every archived Parquet file as one
-- relation, so the views and a user's SQL read both unchanged. A temporary view of this
-- connection named like the table shadows it; writes name the table itself.
-- The files hold the raw columns only (queries/archive/02_batch.sql): `attrs`, which the
-- views read, is derived from the attributes as the span writer derives it for hot spans.
CREATE OR REPLACE TEMP VIEW spans AS
SELECT * FROM {hot_spans}
UNION ALL BY NAME
SELECT * EXCLUDE (shard, day, hour) REPLACE (
    attributes::JSON AS attributes,
    resource::JSON AS resource,
    events::JSON AS events,
    links::JSON AS links
), tg_span_attrs(attributes::JSON) AS attrs
FROM read_parquet(
    '{files}',
    hive_partitioning = true,
    hive_types = {{'shard': VARCHAR, 'day': DATE, 'hour': INTEGER}},
    union_by_name = true
);
