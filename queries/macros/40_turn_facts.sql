-- tg_fresh_fact_traces(source, facts, fact_version): the traces of the relation named `source`
-- (rows of `spans`: each trace's spans, all of them) whose turn facts (store/turn_facts.py,
-- migration 010; `facts` names `turn_fact_traces`) are fresh, so that their turns and calls may be read from `turn_facts`,
-- `turn_fact_calls` and `turn_fact_llm_calls` instead of being rebuilt from the spans. One
-- definition for every reader: scoring (`scoring_fact_traces`) and the pages
-- (queries/report/series_points.sql).
-- Fresh: made by this tracegrade's SQL (`fact_version`, turn_facts.version()), from as many
-- spans as `source` holds of the trace now (a late span, or one archived away, makes them
-- stale), and, for an eval run's turn, from as many of its run's eval-run spans as are
-- stored (they hold the tool definitions its calls read). Counting is one pass over the
-- trace ids, against rebuilding the turns (most of a page's or a re-score's time).
-- `facts` is a parameter because a macro's tables are looked up when it is made, and the
-- macros are made before the migrations run (004 uses one).
CREATE OR REPLACE MACRO tg_fresh_fact_traces(source, facts, fact_version) AS TABLE
WITH counted AS (
    SELECT trace_id, count(*) AS spans FROM query_table(source) GROUP BY trace_id
),
runs AS (
    SELECT run_id, count(*) AS run_spans
    FROM tg_run_ids('spans', 'tracegrade.eval_run')
    GROUP BY run_id
)
SELECT f.trace_id
FROM query_table(facts) f
JOIN counted c USING (trace_id)
LEFT JOIN runs r ON r.run_id = f.run_id
WHERE f.version = fact_version AND f.spans = c.spans
  AND (f.run_id IS NULL OR f.run_spans = coalesce(r.run_spans, 0));
