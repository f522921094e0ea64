-- archive_location: this database's identity in the archive: it claims its shard name in
-- <root>/_shards/<shard>.owner, so that no other database archives under the same name.
--
-- Columns:
--   database_id  a random id made when the archive was set, named by the shard's owner file
ALTER TABLE archive_location ADD COLUMN database_id VARCHAR;
UPDATE archive_location SET database_id = uuid()::VARCHAR;

-- archive_manifest: the span end times each file covers, so that the span writer checks
-- only spans old enough to have been archived, against only the files that can hold
-- them, and a span re-sent after it was archived is not stored again. A file archived
-- before this migration gets the widest bounds its spans can have (0 to its archiving).
--
-- Columns:
--   min_end_ns   the earliest end of a span in the file, Unix epoch nanoseconds
--   max_end_ns   the latest end of a span in the file, Unix epoch nanoseconds
ALTER TABLE archive_manifest ADD COLUMN min_end_ns BIGINT;
ALTER TABLE archive_manifest ADD COLUMN max_end_ns BIGINT;
UPDATE archive_manifest SET min_end_ns = 0, max_end_ns = epoch_ns(archived_at);
