-- spark_task_rows: what one Spark task returns for the turns it scored: one row per
-- (turn, metric) score, and one row per turn with `metric` NULL, so a turn no metric
-- scored (an errored one) still counts at every level. The driver rebuilds `scored_turns`
-- and `turn_scores` from these and runs queries/scoring/03_levels.sql and 04_store.sql.
SELECT t.turn_id, t.trace_id, t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index,
       t.is_error, t.has_expected, s.metric, s.score, s.detail::VARCHAR AS detail
FROM scored_turns AS t
JOIN turn_scores AS s USING (turn_id)
UNION ALL
SELECT t.turn_id, t.trace_id, t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index,
       t.is_error, t.has_expected, NULL, NULL, NULL
FROM scored_turns AS t
