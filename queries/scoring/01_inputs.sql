-- What every scorer reads, for the turns in `scored_turns` (made first from the selection).
-- Tool arguments are put in canonical form (tg_canonical_json) once, here.

-- scored_calls: each scored turn's own tool calls in order (AgentTool internals excluded).
-- raw_args keeps the arguments as sent (canonical args turn true into 1, 3.0 into 3), for
-- the schema check, with what the model was given (tool_offered, tool_schema).
CREATE OR REPLACE TEMP TABLE scored_calls AS
SELECT
    c.turn_id, c.seq, c.name,
    tg_canonical_json(c.args) AS args,
    c.args_captured, c.is_error, c.error_kind, c.error_message,
    c.parallel_group, c.agent_name, c.start_ns, c.end_ns,
    c.args AS raw_args, c.result, c.tool_type, c.tool_offered, c.tool_schema
FROM tool_calls c
JOIN scored_turns t USING (turn_id)
WHERE c.seq IS NOT NULL;

-- scored_llm_calls: each scored turn's model calls, AgentTool internals included (flagged).
CREATE OR REPLACE TEMP TABLE scored_llm_calls AS
SELECT
    l.turn_id, l.seq, l.in_agent_tool, l.model, l.agent_name,
    l.input_tokens, l.output_tokens, l.reasoning_tokens, l.cached_tokens,
    l.is_error, l.start_ns, l.end_ns
FROM llm_calls l
JOIN scored_turns t USING (turn_id);

-- scored_expected: the expected turn paired with each scored turn of an eval run.
CREATE OR REPLACE TEMP TABLE scored_expected AS
SELECT t.turn_id, e.user_text, e.final_text, e.n_tool_calls
FROM scored_turns t
JOIN expected_turns e
  ON e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
 AND e.case_id = t.case_id AND e.turn_index = t.turn_index;

-- scored_expected_calls: the expected tool calls of those turns, in order. An expected call
-- given without arguments compares as `{}`: ADK matches it to a call the model made without
-- arguments (None on both sides), but the execute_tool span of that call says `{}` (ADK
-- runs a tool with `args or {}`), and spans cannot tell the model's None from `{}`. So a
-- call without arguments matches one expected without them, however either spells it
-- (docs/metrics.md, "Calls without arguments"). Inputs loaded directly keep them apart.
CREATE OR REPLACE TEMP TABLE scored_expected_calls AS
SELECT t.turn_id, e.seq, e.name, coalesce(tg_canonical_json(e.args), '{}') AS args
FROM scored_turns t
JOIN expected_tool_calls e
  ON e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
 AND e.case_id = t.case_id AND e.turn_index = t.turn_index;

-- scored_plan: every turn each case repeat of the scored eval run set out to replay, run
-- or not (a run stopped part-way by Ctrl-C leaves some out). Empty for traffic.
CREATE OR REPLACE TEMP TABLE scored_plan AS
SELECT e.run_id, e.eval_set_id, e.case_id, unnest(range(coalesce(r.repeats, 1))) AS repeat,
       e.turn_index
FROM expected_turns e
JOIN eval_runs r USING (run_id)
WHERE e.run_id IN (SELECT run_id FROM scored_turns WHERE run_id IS NOT NULL);
