-- turn_scores: the turn-level scores of chosen turns in one scoring. One row per turn and
-- metric.
-- Parameters: scoring_id, turn_ids.
--
-- Columns:
--   turn_id, metric, score, threshold, status, detail   as in scores
SELECT turn_id, metric, score, threshold, status, detail
FROM scores
WHERE scoring_id = ? AND level = 'turn' AND list_contains(?, turn_id)
ORDER BY turn_id, metric
