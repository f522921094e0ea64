-- The tool calls of the judged turns, in order: the id ADK gave each call (the one its
-- events and so its judges' prompts carry), arguments as the model sent them, the result.
SELECT
    c.turn_id, c.seq, c.name, c.call_id, c.args, c.args_captured, c.result,
    c.response_span_id, c.end_ns, c.is_error, c.error_message
FROM tool_calls c
JOIN judged_turns USING (turn_id)
WHERE c.seq IS NOT NULL
ORDER BY c.turn_id, c.seq
