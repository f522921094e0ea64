-- latest_turn_scoring: the latest scoring that scored a turn. One row, or none.
-- Parameters: turn_id.
--
-- Columns:
--   scoring_id   the scoring
--   run_id       its eval run; NULL when it scored traffic
SELECT s.scoring_id, g.run_id
FROM scores s
JOIN scorings g USING (scoring_id)
WHERE s.turn_id = ? AND s.level = 'turn'
ORDER BY g.scored_at DESC, s.scoring_id DESC
LIMIT 1
