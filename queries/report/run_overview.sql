-- run_overview: what the run page needs from the `turns` view, read in one pass over it
-- (the view is the costly part: ~3 s at 10k turns). One row per item, `data` its fields:
--   kind 'total'  one row: the run's totals, as report/summary.py's Totals (turns,
--                 errored_turns, latency_p50_ms and latency_p95_ms over the turns that
--                 did not error, input_tokens, output_tokens, total_tokens, cost_usd and
--                 priced_turns from the scoring's cost_usd scores)
--   kind 'case'   one page of the scoring's cases, the worst first (errors, failures,
--                 flaky cases, then the rest; by eval set and case id within each): the
--                 case_results columns with the case's turns, latency_p50_ms and tokens
--   kind 'turn'   the chosen turns, then the `slowest` slowest, with the turns view's
--                 facts (as in turns; started_us is epoch microseconds)
-- Parameters: run_id, scoring_id, limit, offset (the case page), chosen turn ids, slowest.
--
-- Columns:
--   kind    total, case or turn
--   ord     the row's place within its kind
--   data    the fields, as JSON
WITH t AS MATERIALIZED (
    SELECT turn_id, trace_id, root_span_id, run_id, eval_set_id, case_id, repeat, turn_index,
           session_id, root_agent, epoch_us(started_at) AS started_us, latency_ms, llm_calls,
           tool_calls, tool_errors, input_tokens::BIGINT AS input_tokens,
           output_tokens::BIGINT AS output_tokens, total_tokens::BIGINT AS total_tokens,
           models, user_text, final_text, is_error, error_type, error_message
    FROM turns
    WHERE run_id = ?
),
p AS (SELECT ?::VARCHAR AS scoring_id, ?::BIGINT AS page, ?::BIGINT AS skip,
             ?::VARCHAR[] AS chosen, ?::BIGINT AS slowest),
cost AS (
    SELECT sum(s.score) AS usd, count(*) AS priced
    FROM scores s, p
    WHERE s.scoring_id = p.scoring_id AND s.level = 'turn' AND s.metric = 'cost_usd'
      AND s.score IS NOT NULL
),
per_case AS (
    SELECT eval_set_id, case_id, count(*) AS turns,
           quantile_cont(latency_ms, 0.5) AS latency_p50_ms, sum(total_tokens) AS tokens
    FROM t
    GROUP BY ALL
),
cases AS (
    SELECT c.eval_set_id, c.case_id, c.verdict, c.repeats, c.passed_repeats, c.failed_repeats,
           c.errored_repeats, c.flaky, c.failed_metrics, coalesce(pc.turns, 0) AS turns,
           pc.latency_p50_ms, pc.tokens,
           row_number() OVER (
               ORDER BY CASE WHEN c.verdict = 'error' THEN 0 WHEN c.verdict = 'failed' THEN 1
                             WHEN c.flaky THEN 2 ELSE 3 END,
                        c.eval_set_id, c.case_id
           ) AS ord
    FROM case_results c
    JOIN p ON c.scoring_id = p.scoring_id
    LEFT JOIN per_case pc USING (eval_set_id, case_id)
),
picked AS (
    SELECT t.*, 0 AS rank FROM t, p WHERE list_contains(p.chosen, t.turn_id)
    UNION ALL
    (SELECT t.*, 1 AS rank FROM t ORDER BY latency_ms DESC NULLS LAST, turn_id
     LIMIT (SELECT slowest FROM p))
)
SELECT 'total' AS kind, 0 AS ord,
       to_json({
           turns: count(*),
           errored_turns: count(*) FILTER (is_error),
           latency_p50_ms: quantile_cont(latency_ms, 0.5) FILTER (NOT is_error),
           latency_p95_ms: quantile_cont(latency_ms, 0.95) FILTER (NOT is_error),
           input_tokens: sum(input_tokens),
           output_tokens: sum(output_tokens),
           total_tokens: sum(total_tokens),
           cost_usd: any_value(cost.usd),
           priced_turns: any_value(cost.priced)
       }) AS data
FROM t, cost
UNION ALL
SELECT 'case', ord, to_json(cases) FROM cases, p WHERE ord > p.skip AND ord <= p.skip + p.page
UNION ALL
SELECT 'turn', row_number() OVER (ORDER BY rank, latency_ms DESC NULLS LAST, turn_id),
       to_json(picked)
FROM picked
ORDER BY kind, ord
