-- case_counts: how many cases of a scoring ended with each verdict. One row per verdict.
-- Parameters: scoring_id.
--
-- Columns:
--   verdict   passed, failed, error or not_evaluated
--   cases     how many
SELECT verdict, count(*) AS cases
FROM case_results
WHERE scoring_id = ?
GROUP BY verdict
ORDER BY verdict
