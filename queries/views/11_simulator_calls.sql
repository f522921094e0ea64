-- simulator_calls: one row per time ADK's user simulator was asked for the next user
-- message of a conversation scenario (its `tracegrade.user_simulator` spans). Its model's
-- calls, tokens and time are here, never in the agent's turns. The last row of a case
-- repeat says how the conversation ended.
--
-- Columns:
--   run_id         the eval run
--   eval_set_id    the eval set
--   case_id        the scenario case
--   repeat         the repeat, from 0
--   turn_index     the turn the message was for, from 0
--   status         message (it wrote the turn's user message), stop_signal (it ended the
--                  conversation: the goal was reached), turn_limit (max_allowed_invocations
--                  reached) or error (it failed: the case repeat is an error)
--   user_text      the message it wrote (status message)
--   model          the simulator's model
--   llm_calls      model calls it made (0 for the starting prompt and the turn limit)
--   input_tokens   prompt tokens of those calls, NULL when none were reported
--   output_tokens  output tokens (thoughts included), NULL when none were reported
--   latency_ms     how long it took
--   error_message  why it failed (status error)
--   trace_id       the span's trace
--   span_id        the span
CREATE OR REPLACE VIEW simulator_calls AS
SELECT
    attributes->>'tracegrade.run_id' AS run_id,
    attributes->>'tracegrade.eval_set_id' AS eval_set_id,
    attributes->>'tracegrade.case_id' AS case_id,
    (attributes->>'tracegrade.repeat')::INTEGER AS repeat,
    (attributes->>'tracegrade.turn_index')::INTEGER AS turn_index,
    coalesce(attributes->>'tracegrade.simulator.status', 'error') AS status,
    attributes->>'tracegrade.user_text' AS user_text,
    attributes->>'tracegrade.simulator.model' AS model,
    coalesce((attributes->>'tracegrade.simulator.llm_calls')::INTEGER, 0) AS llm_calls,
    (attributes->>'tracegrade.simulator.input_tokens')::BIGINT AS input_tokens,
    (attributes->>'tracegrade.simulator.output_tokens')::BIGINT AS output_tokens,
    (end_ns - start_ns) / 1e6 AS latency_ms,
    CASE WHEN status_code = 'ERROR' THEN status_message END AS error_message,
    trace_id,
    span_id
FROM spans
WHERE scope_name = 'tracegrade' AND name = 'tracegrade.user_simulator'
