-- The turns judges read, `judged_turn_rows` (the scored turns, plus the earlier turns of
-- their sessions, rows of the turns view): what the user said, what the eval set expected,
-- and where the turn sits in its case (eval runs) or session (traffic); for a conversation
-- scenario, the scenario the simulated user followed (recorded on the run's eval_case span).
SELECT
    t.turn_id, t.trace_id, t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index,
    t.session_id, t.start_ns, t.user_text, t.final_text, t.is_error,
    e.user_text AS expected_user_text,
    e.final_text AS expected_final_text,
    e.intermediate_texts AS expected_intermediate_texts,
    e.rubrics AS expected_rubrics,
    e.case_rubrics,
    e.run_id IS NOT NULL AS has_expected,
    c.scenario,
    -- Where a sample (score --sample) would put the turn: budgets judge in this order.
    ('0x' || right(t.trace_id, 16))::UBIGINT AS sample_key
FROM judged_turn_rows t
-- scoring_matched_expected: the eval set's cases when the turns are sessions matched to
-- it (`score --evalset`, scoring/matching.py), which no eval-case span records.
LEFT JOIN (
    SELECT * FROM expected_turns UNION ALL BY NAME SELECT * FROM scoring_matched_expected
) e
    ON e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
   AND e.case_id = t.case_id AND e.turn_index = t.turn_index
LEFT JOIN (
    SELECT
        attributes->>'tracegrade.run_id' AS run_id,
        attributes->>'tracegrade.eval_set_id' AS eval_set_id,
        attributes->>'tracegrade.case_id' AS case_id,
        json_extract(attributes->>'tracegrade.expected', '$.scenario') AS scenario
    FROM spans
    WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case'
) c ON c.run_id = t.run_id AND c.eval_set_id = t.eval_set_id AND c.case_id = t.case_id
ORDER BY t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index, t.session_id, t.start_ns
