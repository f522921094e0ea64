-- metric_trends: each metric's run-level score in the latest scoring of the last `limit`
-- eval runs that ran the same eval sets as the given run (compared by eval set id), up
-- to and including it, in the order this database received them (a run span's own times
-- are its sender's). One row per run and metric, oldest run first.
-- Parameters: run_id, limit.
--
-- Columns:
--   run_id       the run
--   started_us   when it started, epoch microseconds
--   metric       the metric
--   score        its run-level score (the mean over the run's turns)
WITH sets AS (
    SELECT run_id, started_at, received_at,
           list_sort(json_extract_string(eval_sets, '$[*].eval_set_id')) AS ids
    FROM eval_runs
),
this AS (SELECT ids, received_at FROM sets WHERE run_id = ? ORDER BY received_at LIMIT 1),
peers AS (
    SELECT s.run_id, min(s.started_at) AS started_at, min(s.received_at) AS received_at
    FROM sets s, this
    WHERE s.ids = this.ids AND s.received_at <= this.received_at
    GROUP BY s.run_id
    ORDER BY received_at DESC, s.run_id DESC
    LIMIT ?
),
latest AS (
    SELECT run_id, scoring_id
    FROM scorings
    WHERE run_id IN (SELECT run_id FROM peers)
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY scored_at DESC, scoring_id DESC) = 1
)
SELECT p.run_id, epoch_us(p.started_at) AS started_us, s.metric, s.score
FROM peers p
JOIN latest l USING (run_id)
JOIN scores s ON s.scoring_id = l.scoring_id AND s.level = 'run'
WHERE s.score IS NOT NULL AND isfinite(s.score)
ORDER BY p.received_at, p.run_id, s.metric
