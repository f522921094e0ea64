-- archive_candidates: one row per hot trace whose every span ended before the cutoff
-- (the `tg_archive_cutoff` variable, Unix epoch nanoseconds): the traces an archiving pass
-- moves, each with the partition of its first span. Whole traces move together, so a
-- trace's spans usually share one file; a span arriving after its trace was archived goes
-- into a later file, and readers group by trace id, never by file.
--
-- Columns:
--   trace_id   the trace
--   day        the UTC day of the trace's first span
--   hour       the UTC hour (0-23) of the trace's first span
CREATE OR REPLACE TEMP TABLE archive_candidates AS
SELECT
    trace_id,
    CAST(make_timestamp(min(start_ns) // 1000) AS DATE) AS day,
    hour(make_timestamp(min(start_ns) // 1000))::INTEGER AS hour
FROM {hot_spans}
GROUP BY trace_id
HAVING max(end_ns) < getvariable('tg_archive_cutoff');
