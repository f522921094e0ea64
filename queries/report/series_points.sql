-- series_points: the monitor's points: each metric per bucket of metric_series and service
-- version, the other groups (agent, model, service name) summed in, within a window. One row
-- per metric, bucket and service version.
-- The series are built with the view's own table macro (tg_metric_series) over the window's
-- scores and their traces' turns alone: the view reads every stored score and builds every
-- stored turn (seconds at 1M scored turns). A bucket starts before its turns, so the buckets
-- of the window hold only turns whose root started in it, and a trace's spans start after
-- its root. The turns of traces whose turn facts are fresh (tg_fresh_fact_traces, the rule
-- scoring reads them by) are read from `turn_facts`, which the writer computed with the
-- views' SQL; only the other traces' turns are rebuilt from their spans (tg_turns), into the
-- same rows. Rebuilding was most of the page's time (17.8 s of a 7d window at 100k turns).
-- Parameters: $1 grain (hour or day), $2 since_us (the window's start, epoch microseconds),
-- $3 rule (or NULL: every rule and `tracegrade score`), $4 agent (or NULL), $5 service_name
-- (or NULL), $6 the facts' version (store.turn_facts.version()).
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
window_traces AS (SELECT DISTINCT split_part(turn_id, '-', 1) AS trace_id FROM windowed),
-- The window's spans of those traces, by trace id alone: counting them is what tells
-- whether a trace's facts are fresh (every span of a trace whose root is in the window is).
counted AS (
    SELECT trace_id FROM spans
    WHERE start_ns >= (SELECT us FROM since) * 1000
      AND trace_id IN (SELECT trace_id FROM window_traces)
),
fresh AS (SELECT trace_id FROM tg_fresh_fact_traces('counted', 'turn_fact_traces', $6)),
-- The spans of the traces to rebuild, those without fresh facts; none read when all are.
rebuilt AS (
    SELECT * FROM spans
    WHERE start_ns >= (SELECT us FROM since) * 1000
      AND trace_id IN (SELECT trace_id FROM window_traces ANTI JOIN fresh USING (trace_id))
),
normalised AS (SELECT * FROM tg_agent_spans('rebuilt')),
tree AS (SELECT * FROM tg_span_tree('normalised', 'rebuilt')),
model_calls AS (SELECT * FROM tg_llm_calls('normalised', 'tree')),
calls AS (SELECT * FROM tg_tool_calls('normalised', 'tree')),
window_turns AS (
    SELECT * FROM turn_facts WHERE trace_id IN (SELECT trace_id FROM fresh)
    UNION ALL BY NAME
    SELECT * FROM tg_turns('normalised', 'tree', 'model_calls', 'calls', 'rebuilt')
),
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
