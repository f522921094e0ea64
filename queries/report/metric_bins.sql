-- metric_bins: a histogram of one metric's turn scores in a scoring: equal-width bins from
-- `lo`, only the bins holding a score. A bin holds its lower edge (0.6 falls in [0.6, 0.7):
-- the quotient is rounded to 9 places first, as 0.6 / 0.1 is 5.999999999999999 in floats);
-- a score past the last edge falls in the last bin.
-- The page gets counts, never the scores, so a 10k-turn run's charts stay small.
-- Parameters: lo, width, bins, scoring_id, metric.
--
-- Columns:
--   bin     the bin's index, from 0
--   turns   scores in it
WITH p AS (SELECT ?::DOUBLE AS lo, ?::DOUBLE AS width, ?::INTEGER AS bins)
SELECT least(greatest(floor(round((s.score - p.lo) / p.width, 9)), 0), p.bins - 1)::INTEGER AS bin,
       count(*) AS turns
FROM scores s, p
WHERE s.scoring_id = ? AND s.level = 'turn' AND s.metric = ?
  AND s.score IS NOT NULL AND isfinite(s.score)
GROUP BY bin
ORDER BY bin
