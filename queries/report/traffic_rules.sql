-- traffic_rules: the rules that scored traffic, with their latest scoring: the monitor's
-- choices, and where each rule's criteria (its thresholds) are read. One row per rule (NULL:
-- `tracegrade score`).
-- Parameters: none.
--
-- Columns:
--   rule         scorings.selection->>'rule'; NULL for `tracegrade score`
--   scoring_id   the rule's latest scoring
SELECT selection->>'rule' AS rule, arg_max(scoring_id, scored_at) AS scoring_id
FROM scorings
WHERE run_id IS NULL
GROUP BY ALL
ORDER BY rule NULLS FIRST
