-- metric_bins: a histogram of one metric's turn scores in a scoring: equal-width bins from
-- `lo`, only the bins holding a score (a score on the last edge falls in the last bin).
-- The page gets counts, never the scores, so a 10k-turn run's charts stay small.
-- Parameters: lo, width, bins, scoring_id, metric.
--
-- Columns:
--   bin     the bin's index, from 0
--   turns   scores in it
WITH p AS (SELECT ?::DOUBLE AS lo, ?::DOUBLE AS width, ?::INTEGER AS bins)
SELECT least(greatest(floor((s.score - p.lo) / p.width), 0), p.bins - 1)::INTEGER AS bin,
       count(*) AS turns
FROM scores s, p
WHERE s.scoring_id = ? AND s.level = 'turn' AND s.metric = ?
  AND s.score IS NOT NULL AND isfinite(s.score)
GROUP BY bin
ORDER BY bin
