-- series_points: the monitor's points: each metric per bucket of metric_series and service
-- version, the other groups (agent, model, service name) summed in, within a window. One row
-- per metric, bucket and service version.
-- Parameters: $1 grain (hour or day), $2 since_us (the window's start, epoch microseconds),
-- $3 rule (or NULL: every rule and `tracegrade score`), $4 agent (or NULL), $5 service_name
-- (or NULL).
--
-- Columns:
--   metric, service_version, threshold   as in metric_series
--   bucket_us      the bucket's start, epoch microseconds
--   turns_scored   turns scored, summed over the groups
--   mean           the mean score over every evaluated turn of the groups
--   p95            the highest p95 of the groups (a p95 cannot be summed)
--   breaches, errors   summed over the groups
--   breach_rate    breaches / turns_scored
--   first_us       the earliest turn start in the bucket
SELECT
    metric,
    epoch_us(bucket) AS bucket_us,
    service_version,
    sum(turns_scored)::BIGINT AS turns_scored,
    sum(mean * evaluated) / nullif(sum(evaluated), 0) AS mean,
    max(p95) AS p95,
    sum(breaches)::BIGINT AS breaches,
    sum(errors)::BIGINT AS errors,
    sum(breaches) / sum(turns_scored) AS breach_rate,
    max(threshold) AS threshold,
    min(first_us) AS first_us
FROM metric_series
WHERE grain = $1
  AND epoch_us(bucket) >= $2 - (CASE WHEN $1 = 'day' THEN 86400 ELSE 3600 END)::BIGINT * 1000000
  AND ($3::VARCHAR IS NULL OR rule = $3)
  AND ($4::VARCHAR IS NULL OR agent = $4)
  AND ($5::VARCHAR IS NULL OR service_name = $5)
GROUP BY ALL
ORDER BY metric, bucket_us, service_version NULLS FIRST
