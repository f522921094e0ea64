-- metrics_rule_scores: per online rule and metric, the turn scores of the traffic scorings
-- made since a cutoff: what serve's GET /metrics exposes. One row per rule and metric.
-- Scorings of `tracegrade score --since/--sample` (no rule) are the rule ''.
-- Parameters: cutoff, epoch seconds.
--
-- Columns:
--   rule       the online rule (selection.rule), '' for a batch scoring
--   metric     the metric
--   mean       the mean turn score
--   scored     turns given a score
--   breaches   turns over the metric's per-turn bound (status failed)
--   errors     turns that errored (status error)
SELECT coalesce(g.selection->>'rule', '') AS rule, s.metric,
       avg(s.score) AS mean,
       count(s.score) AS scored,
       count(*) FILTER (s.status = 'failed') AS breaches,
       count(*) FILTER (s.status = 'error') AS errors
FROM scorings g
JOIN scores s USING (scoring_id)
WHERE g.run_id IS NULL AND s.level = 'turn' AND g.scored_at >= to_timestamp(?)
GROUP BY ALL
ORDER BY ALL
