-- metric_series: one row per metric, time bucket (an hour or a day of the turns' start) and
-- group of traffic turns (rule, agent, model, service, service version): how a metric of
-- production traffic moved, as the monitor page plots it. Only traffic scores (scorings
-- without an eval run) are counted; a turn scored again under the same rule (two `tracegrade
-- score` windows that overlap) counts once, with its latest score.
--
-- Columns:
--   rule              the online scoring rule that scored the turns (serve's rules:
--                     scorings.selection->>'rule'); NULL for `tracegrade score`
--   metric            the metric
--   grain             hour or day
--   bucket            the bucket's start (UTC), by the turns' start time
--   agent             the turns' root agent
--   model             the models the turns called, comma-separated ('' when none)
--   service_name      the turns' resource service.name
--   service_version   the turns' resource service.version
--   turns_scored      turns with a score row for the metric
--   evaluated         of those, turns with a score (not errored, not skipped)
--   mean              mean score
--   p50               median score
--   p95               95th percentile score
--   threshold         the bound the metric was held to (the latest given), if any
--   breaches          turns whose score broke the bound (status failed)
--   breach_rate       breaches / turns_scored
--   errors            turns that errored for this metric (status error)
--   error_rate        errors / turns_scored
--   tokens            the turns' total tokens
--   cost_usd          the turns' cost (their cost_usd metric score), where scored
--   first_us          the earliest turn start in the bucket, epoch microseconds
--
-- tg_metric_series(score_rows, turn_rows): the same, over the relations so named (rows of
-- `scores`, rows of `turns`), as the monitor page builds it from its window's scores and
-- their turns alone.
CREATE OR REPLACE MACRO tg_metric_series(score_rows, turn_rows) AS TABLE
WITH traffic AS (
    SELECT
        g.selection->>'rule' AS rule,
        s.turn_id,
        s.metric,
        s.score,
        s.threshold,
        s.status,
        g.scored_at
    FROM query_table(score_rows) s
    JOIN scorings g USING (scoring_id)
    WHERE g.run_id IS NULL AND s.level = 'turn' AND s.turn_id IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY g.selection->>'rule', s.turn_id, s.metric
        ORDER BY g.scored_at DESC, s.scoring_id DESC
    ) = 1
),
costs AS (
    SELECT rule, turn_id, score AS cost_usd FROM traffic WHERE metric = 'cost_usd'
),
scored AS (
    SELECT
        x.*,
        c.cost_usd,
        t.started_at,
        t.start_ns,
        t.root_agent AS agent,
        array_to_string(t.models, ',') AS model,
        t.service_name,
        t.service_version,
        t.total_tokens
    FROM traffic x
    JOIN query_table(turn_rows) t USING (turn_id)
    LEFT JOIN costs c ON c.turn_id = x.turn_id AND c.rule IS NOT DISTINCT FROM x.rule
),
grains(grain) AS (VALUES ('hour'), ('day'))
SELECT
    rule,
    metric,
    grain,
    date_trunc(grain, started_at) AS bucket,
    agent,
    model,
    service_name,
    service_version,
    count(*) AS turns_scored,
    count(score) AS evaluated,
    avg(score) AS mean,
    quantile_cont(score, 0.5) AS p50,
    quantile_cont(score, 0.95) AS p95,
    arg_max(threshold, scored_at) AS threshold,
    count(*) FILTER (status = 'failed') AS breaches,
    count(*) FILTER (status = 'failed') / count(*) AS breach_rate,
    count(*) FILTER (status = 'error') AS errors,
    count(*) FILTER (status = 'error') / count(*) AS error_rate,
    sum(total_tokens)::BIGINT AS tokens,
    sum(cost_usd) AS cost_usd,
    min(start_ns) // 1000 AS first_us
FROM scored
CROSS JOIN grains
GROUP BY ALL;

CREATE OR REPLACE VIEW metric_series AS SELECT * FROM tg_metric_series('scores', 'turns');
