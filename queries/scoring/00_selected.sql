-- The selected traces' spans normalised once for a scoring. `scoring_spans` (a view the
-- engine makes over `spans`: an eval run's traces, or traffic narrowed by since and sample)
-- goes through the views' own SQL, the tg_* table macros, into tables that the turns, model
-- calls and tool calls are then built from. Read through the views instead, each of turns,
-- llm_calls and tool_calls would normalise and walk every stored span again.
-- The engine drops these tables once the input tables are filled.
--
-- The traces in `scoring_fact_traces` (made first: store/turn_facts.py) have fresh turn
-- facts, which the writer computed with this same SQL when they were complete: their turns
-- and calls are read from `turn_facts`, `turn_fact_calls` and `turn_fact_llm_calls`, and
-- only the other traces' spans (`scoring_rebuilt_spans`) are normalised. Either way the
-- rows are the same; the writer fills the fact tables from `scoring_turns`,
-- `scoring_turn_calls` and `scoring_turn_llm_calls` with no fact traces.

-- The traces to rebuild first, from the trace ids alone: a join of the spans against the
-- fact traces would read every column the views take from every span before dropping the
-- fresh ones; joined against the traces to rebuild, none when all are fresh, DuckDB reads
-- no span.
CREATE OR REPLACE TEMP TABLE scoring_rebuilt_traces AS
SELECT DISTINCT trace_id FROM scoring_spans ANTI JOIN scoring_fact_traces USING (trace_id);

CREATE OR REPLACE TEMP VIEW scoring_rebuilt_spans AS
SELECT s.* FROM scoring_spans s SEMI JOIN scoring_rebuilt_traces r USING (trace_id);

-- Without the attributes: most of the spans' bytes, and turns reads them from the spans.
CREATE OR REPLACE TEMP TABLE scoring_agent_spans AS
SELECT * EXCLUDE (attributes), NULL::JSON AS attributes FROM tg_agent_spans('scoring_rebuilt_spans');

CREATE OR REPLACE TEMP TABLE scoring_span_tree AS
SELECT * FROM tg_span_tree('scoring_agent_spans', 'scoring_rebuilt_spans');

-- The model calls, their message documents left out where the turn's eval-turn span records
-- its user and final text: `turns` takes those two from that span first, and nothing else
-- scoring reads depends on the messages (the calls' user_text, output_text and
-- output_tool_calls only feed them; content_captured reads false). Parsing the documents was
-- most of the model calls' cost: 6.3 of 7.8 s CPU at 320k ADK calls.
CREATE OR REPLACE TEMP VIEW scoring_model_spans AS
WITH texts_recorded AS (
    SELECT trace_id || '-' || span_id AS turn_id
    FROM scoring_rebuilt_spans
    WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_turn'
      AND attrs."tracegrade.user_text" IS NOT NULL AND attrs."tracegrade.final_text" IS NOT NULL
)
SELECT s.* REPLACE (
    CASE WHEN r.turn_id IS NULL THEN s.input_messages END AS input_messages,
    CASE WHEN r.turn_id IS NULL THEN s.output_messages END AS output_messages
)
FROM scoring_agent_spans s
JOIN scoring_span_tree t USING (trace_id, span_id)
LEFT JOIN texts_recorded r ON r.turn_id = t.turn_id
WHERE s.op IN ('llm', 'llm_wrapper');

CREATE OR REPLACE TEMP TABLE scoring_llm_calls AS
SELECT * FROM tg_llm_calls('scoring_model_spans', 'scoring_span_tree');

-- Without the schema check's columns: the tool_call_validity metric checks each distinct
-- call once (scored_calls.raw_args), where this would check every call.
CREATE OR REPLACE TEMP TABLE scoring_tool_calls AS
SELECT * EXCLUDE (valid, validity_errors) FROM tg_tool_calls('scoring_agent_spans', 'scoring_span_tree');

-- scoring_turns: the selected traces' turns (the rows of `turns`), from their facts or
-- rebuilt from their spans.
CREATE OR REPLACE TEMP VIEW scoring_turns AS
SELECT * FROM turn_facts
WHERE trace_id IN (SELECT trace_id FROM scoring_fact_traces)
UNION ALL BY NAME
SELECT * FROM tg_turns(
    'scoring_agent_spans', 'scoring_span_tree', 'scoring_llm_calls', 'scoring_tool_calls',
    'scoring_rebuilt_spans'
);

-- scoring_turn_calls: the selected turns' own tool calls in order (AgentTool internals
-- excluded), as `scored_calls` holds them. Arguments are put in canonical form
-- (tg_canonical_json) once, here; raw_args keeps them as sent (canonical args turn true
-- into 1, 3.0 into 3), for the schema check, with what the model was given (tool_offered,
-- tool_schema).
CREATE OR REPLACE TEMP VIEW scoring_turn_calls AS
SELECT f.* FROM turn_fact_calls f
JOIN turn_facts t USING (turn_id)
WHERE t.trace_id IN (SELECT trace_id FROM scoring_fact_traces)
UNION ALL BY NAME
SELECT
    c.turn_id, c.seq, c.name,
    -- A call the model sent without arguments has none (NULL), which ADK tells from `{}`.
    CASE WHEN c.args_omitted THEN NULL ELSE tg_canonical_json(c.args) END AS args,
    c.args_captured, c.is_error, c.error_kind, c.error_type, c.error_message,
    c.parallel_group, c.agent_name, c.start_ns, c.end_ns,
    c.args AS raw_args, c.result, c.tool_type, c.tool_offered, c.tool_schema
FROM scoring_tool_calls c
WHERE c.seq IS NOT NULL;

-- scoring_turn_llm_calls: the selected turns' model calls, AgentTool internals included
-- (flagged), as `scored_llm_calls` holds them.
CREATE OR REPLACE TEMP VIEW scoring_turn_llm_calls AS
SELECT f.* FROM turn_fact_llm_calls f
JOIN turn_facts t USING (turn_id)
WHERE t.trace_id IN (SELECT trace_id FROM scoring_fact_traces)
UNION ALL BY NAME
SELECT
    l.turn_id, l.seq, l.in_agent_tool, l.model, l.agent_name,
    l.input_tokens, l.output_tokens, l.reasoning_tokens, l.cached_tokens,
    l.is_error, l.start_ns, l.end_ns
FROM scoring_llm_calls l;
