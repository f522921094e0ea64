-- From per-turn scores (turn_scores) to the rows of `scores`, at three levels, using the
-- criteria in scoring_criteria. A turn that errored gets no score: errors are not failures.

-- Per turn: the score, held to `threshold` (higher: score >= t; lower: score <= t) and `max`.
CREATE OR REPLACE TEMP TABLE level_turn AS
SELECT
    'turn' AS level,
    t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index, t.turn_id,
    c.metric,
    CASE WHEN NOT t.is_error THEN s.score END AS score,
    coalesce(c.threshold, c.max) AS threshold,
    CASE WHEN c.gating AND NOT t.is_error AND s.score IS NOT NULL
              AND (c.threshold IS NOT NULL OR c.max IS NOT NULL)
        THEN coalesce(CASE c.better WHEN 'higher' THEN s.score >= c.threshold
                                    ELSE s.score <= c.threshold END, true)
             AND coalesce(s.score <= c.max, true)
    END AS passed,
    t.is_error,
    s.detail
FROM scored_turns t
CROSS JOIN scoring_criteria c
LEFT JOIN turn_scores s ON s.turn_id = t.turn_id AND s.metric = c.metric
WHERE s.turn_id IS NOT NULL OR (t.is_error AND (t.has_expected OR NOT c.needs_expected));

-- Per case repeat of an eval run: ADK's mean of the turn scores, held to `threshold`; `max`
-- holds when every turn is within it.
CREATE OR REPLACE TEMP TABLE level_case AS
SELECT
    'case' AS level,
    l.run_id, l.eval_set_id, l.case_id, l.repeat,
    l.metric,
    avg(l.score) AS score,
    max(l.score) AS worst_high,
    bool_or(l.is_error) AS errored,
    any_value(c.threshold) AS threshold,
    any_value(c.max) AS max_bound,
    any_value(c.better) AS better,
    any_value(c.gating) AS gating,
    count(l.score) AS evaluated,
    count(*) AS turns
FROM level_turn l
JOIN scoring_criteria c USING (metric)
WHERE l.case_id IS NOT NULL
GROUP BY ALL;

-- Per run (or per scored selection of traffic): distribution of the turn scores, with the
-- run-level budgets p50 and p95.
CREATE OR REPLACE TEMP TABLE level_run AS
SELECT
    'run' AS level,
    l.run_id,
    l.metric,
    avg(l.score) AS mean,
    quantile_cont(l.score, 0.5) AS p50,
    quantile_cont(l.score, 0.95) AS p95,
    max(l.score) AS max,
    count(l.score) AS evaluated,
    count(*) FILTER (l.is_error) AS errored,
    count(*) FILTER (l.passed = false) AS failed_turns,
    any_value(c.p50) AS p50_bound,
    any_value(c.p95) AS p95_bound,
    any_value(c.gating) AS gating
FROM level_turn l
JOIN scoring_criteria c USING (metric)
GROUP BY ALL;
