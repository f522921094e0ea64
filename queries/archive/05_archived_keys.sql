-- The incoming spans (the span writer's batch, {incoming}) that these archived files
-- ($1, a list of paths) already hold, by key. The files are sorted by trace id, so the
-- join's trace-id filter skips most of their row groups.
--
-- Columns:
--   trace_id   the span's trace
--   span_id    the span
SELECT a.trace_id, a.span_id
FROM read_parquet($1) AS a
SEMI JOIN {incoming} AS b USING (trace_id, span_id);
