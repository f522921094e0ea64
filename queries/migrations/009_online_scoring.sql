-- online_rules: one row per version of an online scoring rule (`serve --rules`) a server
-- has run, and how far its cursor has read. A rule's version is a hash of what decides its
-- scores (where, sample, criteria, prices); a changed rule is a new row whose cursor starts
-- when it was first served, so it scores the turns completed after the change only (unless
-- the rule asks to backfill: then from the start).
--
-- Columns:
--   rule          the rule's name
--   rule_version  sha256 (first 16 hex digits) of the rule's scoring fields
--   definition    the rule as served (JSON)
--   activated_at  when a server first ran this version
--   cursor_at     the turns whose last span was stored at or before this are decided
--                 (scored, or left out by `where` and `sample`)
--   backfill      whether this version started from the first stored span
CREATE TABLE online_rules (
    rule         VARCHAR NOT NULL,
    rule_version VARCHAR NOT NULL,
    definition   JSON NOT NULL,
    activated_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    cursor_at    TIMESTAMPTZ NOT NULL,
    backfill     BOOLEAN NOT NULL,
    PRIMARY KEY (rule, rule_version)
);

-- online_scored: the ledger of online scoring, one row per turn a rule version scored.
-- Written in the same transaction as the turn's scores and the cursor's advance, so after
-- a crash a turn is scored or not, never half, and never twice (the key).
--
-- Columns:
--   rule          the rule
--   rule_version  its version
--   turn_id       the turn scored
--   scoring_id    the scoring that holds its scores (selection->>'rule' names the rule)
--   completed_at  when the turn's last span was stored
--   scored_at     when its scores were committed
CREATE TABLE online_scored (
    rule         VARCHAR NOT NULL,
    rule_version VARCHAR NOT NULL,
    turn_id      VARCHAR NOT NULL,
    scoring_id   VARCHAR NOT NULL,
    completed_at TIMESTAMPTZ NOT NULL,
    scored_at    TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (rule, rule_version, turn_id)
);
