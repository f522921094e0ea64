-- archive_location: where this database moves its archived spans (`tracegrade archive`,
-- `serve --archive`), one row once set. The views read these Parquet files with the hot
-- `spans` table as one (see README "Scaling out").
--
-- Columns:
--   root     the archive's root folder; files lie under shard=<shard>/day=<day>/hour=<hour>/
--   shard    this database's shard name, the first partition level of its files
--   set_at   when the archive was set
CREATE TABLE archive_location (
    root   VARCHAR NOT NULL,
    shard  VARCHAR NOT NULL,
    set_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);

-- archive_manifest: one row per Parquet file this database moved spans into. The row is
-- committed in the same transaction that deletes those spans from `spans`, so a span is in
-- the hot table or in a committed file, never both and never neither.
--
-- Columns:
--   path         the file, relative to the archive root (shard=/day=/hour=/<batch>_<n>.parquet)
--   tmp_path     where it was written before being published at `path` (relative to the root)
--   batch_id     the archiving batch that wrote it
--   day          partition day (UTC) of the traces' first span
--   hour         partition hour (UTC, 0-23)
--   spans        spans in the file
--   bytes        size of the file
--   archived_at  when the batch committed
CREATE TABLE archive_manifest (
    path        VARCHAR PRIMARY KEY,
    tmp_path    VARCHAR NOT NULL,
    batch_id    VARCHAR NOT NULL,
    day         DATE NOT NULL,
    hour        INTEGER NOT NULL,
    spans       BIGINT NOT NULL,
    bytes       BIGINT NOT NULL,
    archived_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
