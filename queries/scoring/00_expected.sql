-- The selected traces' eval cases and their expected turns, for a scoring (after
-- 00_selected.sql, from the same `scoring_spans`). Apart from 00_selected.sql because turn
-- facts are made with that file's SQL only: its digest (store/turn_facts.py, `version`) is
-- what makes stored facts stale, and the writer's fact passes need no expectations.
-- score --evalset replaces these rows with the eval set's cases (scoring/matching.py).

-- The eval-case spans of the selected traces (an eval run's cases are in its run's trace,
-- which carries its run id), read once: they are spread over the file, and each read of
-- their attributes reads the whole column (~0.6 s CPU at 1.16M ADK spans), which the
-- expected turns, their calls, the plan and the scenarios each did. Only the columns
-- those read: every column of 20k eval-case spans among 1.16M is 0.6-0.9 s, these three
-- 0.25 s (the attrs struct alone is read whole for every row group they touch).
CREATE OR REPLACE TEMP TABLE scoring_case_spans AS
SELECT scope_name, name, attributes
FROM scoring_spans WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case';

CREATE OR REPLACE TEMP TABLE scoring_expected_turns AS
SELECT * FROM tg_expected_turns('scoring_case_spans');
