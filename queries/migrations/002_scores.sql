-- One row per time a selection of turns was scored (`tracegrade run` / `tracegrade score`).
CREATE TABLE scorings (
    scoring_id      VARCHAR PRIMARY KEY,
    scored_at       TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    run_id          VARCHAR,            -- the eval run scored; NULL for a selection of traffic
    selection       JSON NOT NULL,      -- {run_id, since, sample, where}
    config          JSON NOT NULL,      -- the criteria, repeat policy, error budget and prices used
    turns           INTEGER NOT NULL,   -- turns scored
    error_rate      DOUBLE,             -- errored case-repeats (eval) or turns (traffic) / all
    verdict         VARCHAR NOT NULL,   -- passed, failed, errors
    exit_code       INTEGER NOT NULL,
    tracegrade_version VARCHAR
);

-- Every score: per turn, per case repeat (turn_index NULL) and per run (case_id NULL).
CREATE TABLE scores (
    scoring_id  VARCHAR NOT NULL,
    level       VARCHAR NOT NULL,       -- turn, case, run
    run_id      VARCHAR,
    eval_set_id VARCHAR,
    case_id     VARCHAR,
    repeat      INTEGER,
    turn_index  INTEGER,
    turn_id     VARCHAR,                -- the turn (level turn)
    metric      VARCHAR NOT NULL,
    score       DOUBLE,                 -- NULL: not evaluated, or the turn errored
    threshold   DOUBLE,                 -- the bound this level was held to, if any
    passed      BOOLEAN,                -- NULL unless the metric gates at this level
    status      VARCHAR NOT NULL,       -- passed, failed, informational, not_evaluated, error
    detail      JSON
);

-- One row per case of an eval run: how its repeats decided it under the repeat policy.
CREATE TABLE case_results (
    scoring_id      VARCHAR NOT NULL,
    run_id          VARCHAR NOT NULL,
    eval_set_id     VARCHAR NOT NULL,
    case_id         VARCHAR NOT NULL,
    repeats         INTEGER NOT NULL,
    passed_repeats  INTEGER NOT NULL,
    failed_repeats  INTEGER NOT NULL,
    errored_repeats INTEGER NOT NULL,
    verdict         VARCHAR NOT NULL,   -- passed, failed, error, not_evaluated
    flaky           BOOLEAN NOT NULL,   -- passed some judged repeats, not all
    failed_metrics  VARCHAR[] NOT NULL
);
