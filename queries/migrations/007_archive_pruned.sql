-- archive_pruned: one row per archived file this database dropped on purpose: its day
-- pruned (`tracegrade archive --prune-older-than`), recorded as deleted by hand
-- (`--prune-missing`), or rewritten into a bigger one (`--compact`). The row is committed
-- in the transaction that removes the file's `archive_manifest` row, before the file is
-- deleted, so a crash in between leaves a file the next open deletes, never one read
-- twice.
--
-- Columns:
--   path       the file, relative to the archive root
--   day        its partition day (UTC)
--   hour       its partition hour (UTC, 0-23)
--   spans      spans it held
--   reason     'older-than', 'missing' or 'compacted'
--   pruned_at  when it was dropped
CREATE TABLE archive_pruned (
    path      VARCHAR PRIMARY KEY,
    day       DATE NOT NULL,
    hour      INTEGER NOT NULL,
    spans     BIGINT NOT NULL,
    reason    VARCHAR NOT NULL,
    pruned_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
