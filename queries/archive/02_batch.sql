-- archive_batch: the spans one archiving batch moves, with the raw columns `spans` stores
-- (derived columns are recomputed on read): every hot span of the candidate traces of one
-- partition (the `tg_archive_day` and `tg_archive_hour` variables).
CREATE OR REPLACE TEMP TABLE archive_batch AS
SELECT {columns}
FROM {hot_spans} AS s
WHERE s.trace_id IN (
    SELECT trace_id FROM archive_candidates
    WHERE day = getvariable('tg_archive_day') AND hour = getvariable('tg_archive_hour')
);
