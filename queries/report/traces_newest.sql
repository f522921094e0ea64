-- traces_newest: the newest traffic traces whose root span matches the traces page's
-- root-level filters (time, service, minimum latency): what the page lists when no filter
-- needs the traces' other spans. Reads only the root spans' plain columns. One row per trace.
-- Parameters: $1 since_ns (or NULL), $2 before_ns (or NULL: the newest), $3 service_name (or
-- NULL), $4 min_latency_ms (or NULL), $5 limit.
--
-- Columns:
--   trace_id    the trace
--   start_ns    its root span's start, epoch ns (the page's cursor for older traces)
SELECT trace_id, start_ns
FROM spans
WHERE parent_span_id IS NULL
  AND scope_name IS DISTINCT FROM 'tracegrade'
  AND ($1::BIGINT IS NULL OR start_ns >= $1)
  AND ($2::BIGINT IS NULL OR start_ns < $2)
  AND ($3::VARCHAR IS NULL OR service_name = $3)
  AND ($4::DOUBLE IS NULL OR (end_ns - start_ns) / 1e6 >= $4)
ORDER BY start_ns DESC, trace_id DESC
LIMIT $5
