-- series_points: the monitor's points: each metric per bucket of metric_series and service
-- version, the other groups (agent, model, service name) summed in, within a window. One row
-- per metric, bucket and service version.
-- The series are built with the view's own table macros (tg_metric_series, tg_turns) over
-- the window's scores and the spans of their traces alone: the view reads every stored
-- score and builds every stored turn (seconds at 1M scored turns). A bucket starts before
-- its turns, so the buckets of the window hold only turns whose root started in it, and a
-- trace's spans start after its root.
-- Parameters: $1 grain (hour or day), $2 since_us (the window's start, epoch microseconds),
-- $3 rule (or NULL: every rule and `tracegrade score`), $4 agent (or NULL), $5 service_name
-- (or NULL).
--
-- Columns:
--   metric, service_version, threshold   as in metric_series
--   bucket_us      the bucket's start, epoch microseconds
--   turns_scored   turns scored, summed over the groups
--   mean           the mean score over every evaluated turn of the groups
--   p95            the highest p95 of the groups (a p95 cannot be summed)
--   breaches, errors   summed over the groups
--   breach_rate    breaches / turns_scored
--   first_us       the earliest turn start in the bucket
WITH since AS (
    -- The first bucket shown starts at or after this (epoch microseconds).
    SELECT $2 - (CASE WHEN $1 = 'day' THEN 86400 ELSE 3600 END)::BIGINT * 1000000 AS us
),
roots AS (
    -- The window's spans as turn ids: a turn's id is its root's trace and span id.
    SELECT trace_id || '-' || span_id AS turn_id
    FROM spans
    WHERE start_ns >= (SELECT us FROM since) * 1000
),
windowed AS (
    SELECT s.*
    FROM scores s
    JOIN roots USING (turn_id)
    JOIN scorings g USING (scoring_id)
    WHERE g.run_id IS NULL AND s.level = 'turn'
      AND ($3::VARCHAR IS NULL OR g.selection->>'rule' = $3)
),
picked AS (
    SELECT * FROM spans
    WHERE start_ns >= (SELECT us FROM since) * 1000
      AND trace_id IN (SELECT split_part(turn_id, '-', 1) FROM windowed)
),
normalised AS (SELECT * FROM tg_agent_spans('picked')),
tree AS (SELECT * FROM tg_span_tree('normalised', 'picked')),
model_calls AS (SELECT * FROM tg_llm_calls('normalised', 'tree')),
calls AS (SELECT * FROM tg_tool_calls('normalised', 'tree')),
window_turns AS (SELECT * FROM tg_turns('normalised', 'tree', 'model_calls', 'calls', 'picked')),
series AS (SELECT * FROM tg_metric_series('windowed', 'window_turns'))
SELECT
    metric,
    epoch_us(bucket) AS bucket_us,
    service_version,
    sum(turns_scored)::BIGINT AS turns_scored,
    sum(mean * evaluated) / nullif(sum(evaluated), 0) AS mean,
    max(p95) AS p95,
    sum(breaches)::BIGINT AS breaches,
    sum(errors)::BIGINT AS errors,
    sum(breaches) / sum(turns_scored) AS breach_rate,
    max(threshold) AS threshold,
    min(first_us) AS first_us
FROM series
WHERE grain = $1
  AND epoch_us(bucket) >= (SELECT us FROM since)
  AND ($3::VARCHAR IS NULL OR rule = $3)
  AND ($4::VARCHAR IS NULL OR agent = $4)
  AND ($5::VARCHAR IS NULL OR service_name = $5)
GROUP BY ALL
ORDER BY metric, bucket_us, service_version NULLS FIRST
