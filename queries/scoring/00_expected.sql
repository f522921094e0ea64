-- The selected traces' eval cases and their expected turns, for a scoring (after
-- 00_selected.sql: its fresh traces, and the spans it rebuilds). Apart from it because turn
-- facts are made with that file's SQL only: its digest (store/turn_facts.py, `version`) is
-- what makes stored facts stale. The writer keeps an eval run's case spans as they are.
-- score --evalset replaces these rows with the eval set's cases (scoring/matching.py).

-- The eval-case spans of the selected traces (an eval run's cases are in its run's trace,
-- which carries its run id), read once: the expected turns, their calls, the plan and the
-- scenarios each read them. A trace with fresh facts has its case spans in
-- `turn_fact_cases`; the others' are read from their spans, which are spread over the
-- file: reading their attributes there decodes every row group's (1.0 s at 1.16M ADK spans
-- with content captured), so only the three columns read are taken.
CREATE OR REPLACE TEMP TABLE scoring_case_spans AS
SELECT 'tracegrade' AS scope_name, 'tracegrade.eval_case' AS name, attributes
FROM turn_fact_cases
WHERE trace_id IN (SELECT trace_id FROM scoring_fact_traces)
UNION ALL
SELECT scope_name, name, attributes
FROM scoring_rebuilt_spans WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case';

CREATE OR REPLACE TEMP TABLE scoring_expected_turns AS
SELECT * FROM tg_expected_turns('scoring_case_spans');
