-- traffic_scorings: scorings of production traffic (no eval run), newest first.
-- Parameters: limit.
--
-- Columns:
--   scoring_id   the scoring
--   scored_us    when, epoch microseconds
--   turns        turns it scored
--   verdict      passed, failed or errors
--   selection    what was scored: {run_id, since_s, sample, where}
SELECT scoring_id, epoch_us(scored_at) AS scored_us, turns, verdict, selection
FROM scorings
WHERE run_id IS NULL
ORDER BY scored_at DESC, scoring_id DESC
LIMIT ?
