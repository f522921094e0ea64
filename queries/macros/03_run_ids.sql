-- tg_run_ids(source, span_name): the trace id, span id and run id of each tracegrade span
-- named `span_name` (tracegrade.eval_case, tracegrade.eval_turn, ...) in the relation named
-- `source` (rows of `spans`). The run id comes from `attrs` where the writer stored it and
-- from the attributes JSON only for spans without, in two branches rather than a coalesce:
-- these spans are spread over the file, and reading their attributes reads the whole column
-- (~0.6 s CPU a scan at 1.16M ADK spans).
CREATE OR REPLACE MACRO tg_run_ids(source, span_name) AS TABLE
SELECT trace_id, span_id, attrs."tracegrade.run_id" AS run_id
FROM query_table(source)
WHERE scope_name = 'tracegrade' AND name = span_name AND attrs IS NOT NULL
UNION ALL
SELECT trace_id, span_id, attributes->>'tracegrade.run_id' AS run_id
FROM query_table(source)
WHERE scope_name = 'tracegrade' AND name = span_name AND attrs IS NULL;
