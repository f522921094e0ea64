-- The committed files of this database that can hold a span ending between the
-- `tg_probe_min_end` and `tg_probe_max_end` variables (Unix epoch nanoseconds): the files
-- the span writer reads to drop re-sent spans the archive already holds.
--
-- Columns:
--   path       the file's place, relative to the archive root
--   tmp_path   where it waits until published (after a crash, until the next pass)
SELECT path, tmp_path
FROM archive_manifest
WHERE min_end_ns <= getvariable('tg_probe_max_end')
  AND max_end_ns >= getvariable('tg_probe_min_end')
ORDER BY path;
