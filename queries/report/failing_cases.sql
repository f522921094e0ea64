-- failing_cases: the worst cases of a scoring, read in full on the run page: errors first,
-- then failures, by eval set and case id (the order of run_overview's case page), each
-- with its turns that failed or errored, in repeat and turn order. Read from the scores
-- tables only (cheap whatever the run's size). One row per case.
-- Parameters: scoring_id, scoring_id, limit.
--
-- Columns:
--   eval_set_id, case_id   the case
--   turn_ids               its failed or errored turns
WITH bad AS (
    SELECT DISTINCT eval_set_id, case_id, repeat, turn_index, turn_id
    FROM scores
    WHERE scoring_id = ? AND level = 'turn' AND status IN ('failed', 'error')
)
SELECT c.eval_set_id, c.case_id,
       coalesce(list(b.turn_id ORDER BY b.repeat, b.turn_index) FILTER (b.turn_id IS NOT NULL),
                []) AS turn_ids
FROM case_results c
LEFT JOIN bad b USING (eval_set_id, case_id)
WHERE c.scoring_id = ? AND c.verdict IN ('error', 'failed')
GROUP BY c.eval_set_id, c.case_id, c.verdict
ORDER BY c.verdict = 'failed', c.eval_set_id, c.case_id
LIMIT ?
