-- scorings: one row per time a selection of turns was scored (`tracegrade run`, `score`).
--
-- Columns:
--   scoring_id           the scoring
--   scored_at            when
--   run_id               the eval run scored; NULL for a selection of traffic
--   selection            what was selected: {run_id, since_s, sample, where} (JSON)
--   config               the criteria, repeat policy, error budget and prices used (JSON)
--   turns                turns scored
--   error_rate           errored case repeats (eval) or turns (traffic) over all
--   verdict              passed, failed or errors
--   exit_code            the exit code the gate decided (0, 1 or 3)
--   tracegrade_version   tracegrade version that scored
CREATE TABLE scorings (
    scoring_id         VARCHAR PRIMARY KEY,
    scored_at          TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    run_id             VARCHAR,
    selection          JSON NOT NULL,
    config             JSON NOT NULL,
    turns              INTEGER NOT NULL,
    error_rate         DOUBLE,
    verdict            VARCHAR NOT NULL,
    exit_code          INTEGER NOT NULL,
    tracegrade_version VARCHAR
);

-- scores: every score of a scoring, per turn, per case repeat and per run.
--
-- Columns:
--   scoring_id    the scoring
--   level         turn, case (one case repeat: turn_index NULL) or run (case_id NULL)
--   run_id        the eval run (NULL for traffic)
--   eval_set_id   the eval set
--   case_id       the case
--   repeat        the repeat
--   turn_index    the turn's position in its case
--   turn_id       the turn (level turn)
--   metric        the metric
--   score         the value; NULL when not evaluated or the turn errored
--   threshold     the bound this level was held to, if any
--   passed        whether it held; NULL unless the metric gates at this level
--   status        passed, failed, informational, not_evaluated, not_applicable (case
--                 level: the metric needs expected turns, a scenario case has none) or error
--   detail        the metric's explanation (JSON), e.g. expected and actual calls
CREATE TABLE scores (
    scoring_id  VARCHAR NOT NULL,
    level       VARCHAR NOT NULL,
    run_id      VARCHAR,
    eval_set_id VARCHAR,
    case_id     VARCHAR,
    repeat      INTEGER,
    turn_index  INTEGER,
    turn_id     VARCHAR,
    metric      VARCHAR NOT NULL,
    score       DOUBLE,
    threshold   DOUBLE,
    passed      BOOLEAN,
    status      VARCHAR NOT NULL,
    detail      JSON
);

-- case_results: one row per case of a scored eval run: how its repeats decided it.
--
-- Columns:
--   scoring_id        the scoring
--   run_id            the run
--   eval_set_id       the eval set
--   case_id           the case
--   repeats           repeats run
--   passed_repeats    repeats that passed
--   failed_repeats    repeats that failed a gating metric
--   errored_repeats   repeats that crashed (left out of the repeat policy)
--   verdict           passed, failed, error (every repeat errored) or not_evaluated
--   flaky             passed some judged repeats, not all
--   failed_metrics    the metrics that failed
CREATE TABLE case_results (
    scoring_id      VARCHAR NOT NULL,
    run_id          VARCHAR NOT NULL,
    eval_set_id     VARCHAR NOT NULL,
    case_id         VARCHAR NOT NULL,
    repeats         INTEGER NOT NULL,
    passed_repeats  INTEGER NOT NULL,
    failed_repeats  INTEGER NOT NULL,
    errored_repeats INTEGER NOT NULL,
    verdict         VARCHAR NOT NULL,
    flaky           BOOLEAN NOT NULL,
    failed_metrics  VARCHAR[] NOT NULL
);
