-- run_facts_fresh: whether every trace of an eval run has fresh turn facts
-- (tg_fresh_fact_traces, the rule scoring reads them by), so that the run's report reads its
-- turns and calls from `turn_facts` and `turn_fact_calls`, which the writer computed with
-- the views' SQL, instead of through the `turns` and `tool_calls` views: DuckDB planning
-- those two views was most of a small run's `tracegrade report` (~0.7 of 1.5 s, whatever
-- the run's size). A run with any trace not fresh is read through the views, into the same
-- rows. One row.
-- Parameters: $1 run_id, $2 the facts' version (store.turn_facts.version()).
--
-- Columns:
--   fresh          true when the run has traces and all of them have fresh facts
WITH run_traces AS (
    -- As a scoring of the run selects them (scoring/selection.py): the traces with a span
    -- carrying the run id, from `attrs` where the writer stored it, else the JSON.
    SELECT trace_id FROM spans WHERE attrs."tracegrade.run_id" = $1
    UNION
    SELECT trace_id FROM spans WHERE attrs IS NULL AND attributes->>'tracegrade.run_id' = $1
),
counted AS (SELECT trace_id FROM spans WHERE trace_id IN (SELECT trace_id FROM run_traces)),
fresh AS (SELECT trace_id FROM tg_fresh_fact_traces('counted', 'turn_fact_traces', $2))
SELECT count(*) > 0 AND count(*) = (SELECT count(*) FROM fresh) AS fresh FROM run_traces
