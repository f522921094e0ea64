-- turn_fact_cases: the eval-case spans of each trace whose turn facts are stored (an eval
-- run's own trace: its cases and their expected turns), as scoring reads them
-- (queries/scoring/00_expected.sql), kept by the writer with the trace's other facts and
-- fresh while they are (`turn_fact_traces`). An eval run's case spans are spread over
-- `spans`, where reading their attributes decodes every row group's (1.0 s at 1.16M ADK
-- spans with content captured); here they are a table of their own.
--
-- Columns:
--   trace_id     the eval run's trace
--   span_id      the case's tracegrade.eval_case span
--   attributes   that span's attributes: the run, eval set and case, and tracegrade.expected
CREATE TABLE turn_fact_cases (
    trace_id   VARCHAR NOT NULL,
    span_id    VARCHAR NOT NULL,
    attributes JSON NOT NULL
);

-- The traces with facts stored already are fresh: theirs from their spans, once.
INSERT INTO turn_fact_cases
SELECT trace_id, span_id, attributes FROM spans
WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case'
  AND trace_id IN (SELECT trace_id FROM turn_fact_traces);
