-- metric_ranges: for each metric a scoring scored per turn, the range of its finite scores,
-- from which the histograms' bins are chosen. One row per metric.
-- Parameters: scoring_id.
--
-- Columns:
--   metric     the metric
--   turns      turns with a finite score
--   lo, hi     the lowest and highest score
SELECT metric, count(*) AS turns, min(score) AS lo, max(score) AS hi
FROM scores
WHERE scoring_id = ? AND level = 'turn' AND score IS NOT NULL AND isfinite(score)
GROUP BY metric
ORDER BY metric
