-- The turns judges read, `judged_turn_rows` (the scored turns, plus the earlier turns of
-- their sessions, rows of the turns view): what the user said, what the eval set expected,
-- and where the turn sits in its case (eval runs) or session (traffic).
SELECT
    t.turn_id, t.trace_id, t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index,
    t.session_id, t.start_ns, t.user_text, t.final_text, t.is_error,
    e.user_text AS expected_user_text,
    e.final_text AS expected_final_text,
    e.intermediate_texts AS expected_intermediate_texts,
    e.rubrics AS expected_rubrics,
    e.case_rubrics,
    e.run_id IS NOT NULL AS has_expected,
    -- Where a sample (score --sample) would put the turn: budgets judge in this order.
    ('0x' || right(t.trace_id, 16))::UBIGINT AS sample_key
FROM judged_turn_rows t
LEFT JOIN expected_turns e
    ON e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
   AND e.case_id = t.case_id AND e.turn_index = t.turn_index
ORDER BY t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index, t.session_id, t.start_ns
