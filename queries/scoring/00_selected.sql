-- The selected traces' spans normalised once for a scoring. `scoring_spans` (a view the
-- engine makes over `spans`: an eval run's traces, or traffic narrowed by since and sample)
-- goes through the views' own SQL, the tg_* table macros, into tables that the turns, model
-- calls and tool calls are then built from. Read through the views instead, each of turns,
-- llm_calls and tool_calls would normalise and walk every stored span again.
-- The engine drops these tables once the input tables are filled.

-- Without the attributes: most of the spans' bytes, and turns reads them from the spans.
CREATE OR REPLACE TEMP TABLE scoring_agent_spans AS
SELECT * EXCLUDE (attributes), NULL::JSON AS attributes FROM tg_agent_spans('scoring_spans');

CREATE OR REPLACE TEMP TABLE scoring_span_tree AS
SELECT * FROM tg_span_tree('scoring_agent_spans', 'scoring_spans');

CREATE OR REPLACE TEMP TABLE scoring_llm_calls AS
SELECT * FROM tg_llm_calls('scoring_agent_spans', 'scoring_span_tree');

-- Without the schema check's columns: the tool_call_validity metric checks each distinct
-- call once (scored_calls.raw_args), where this would check every call.
CREATE OR REPLACE TEMP TABLE scoring_tool_calls AS
SELECT * EXCLUDE (valid, validity_errors) FROM tg_tool_calls('scoring_agent_spans', 'scoring_span_tree');

CREATE OR REPLACE TEMP VIEW scoring_turns AS
SELECT * FROM tg_turns(
    'scoring_agent_spans', 'scoring_span_tree', 'scoring_llm_calls', 'scoring_tool_calls',
    'scoring_spans'
);
