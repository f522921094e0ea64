-- metric: per_turn_user_simulator_quality_v1
-- better: higher
-- needs: nothing
-- judge: adk
-- One row per turn of a conversation scenario (ADK's user simulator wrote its messages):
-- ADK's per_turn_user_simulator_quality_v1, which rates the simulated user, not the agent.
-- Turn 0 scores 1.0 when its message is the scenario's starting prompt (no judge call);
-- each later turn is judged against the conversation plan, num_samples times, by majority
-- (a tie is 0.0); then the stop check asks whether the conversation should have ended
-- after the last turn, and a 0.0 there becomes the last turn's score. A turn whose
-- answers could not be read scores 0.0: ADK counts it in the case's denominator, so its
-- case score (the mean) stays ADK's. When a judge call failed, the budget ran out or
-- ADK's evaluator raised, no turn of the case repeat is scored (ADK: not evaluated).
-- A turn of an eval case that is not a scenario gets no score and says why (ADK: not
-- evaluated without a conversation_scenario); a case gated on this metric alone is then
-- not evaluated.
-- detail: {votes, stop_votes, rationale, reason, judge_error}
WITH scenarios AS (
    SELECT
        attributes->>'tracegrade.run_id' AS run_id,
        attributes->>'tracegrade.eval_set_id' AS eval_set_id,
        attributes->>'tracegrade.case_id' AS case_id,
        json_extract_string(attributes->>'tracegrade.expected', '$.scenario.starting_prompt')
            AS starting_prompt
    FROM spans
    WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case'
      AND json_extract(attributes->>'tracegrade.expected', '$.scenario') IS NOT NULL
),
turns AS (
    SELECT
        t.turn_id, t.turn_index, t.user_text, s.starting_prompt,
        t.turn_index = max(t.turn_index) OVER conversation AS is_last,
        bool_or(j.outcome IS NOT NULL AND j.outcome <> 'answered') OVER conversation AS unscored,
        arg_min(j.error, j.outcome) FILTER (j.outcome <> 'answered') OVER conversation AS problem,
        bool_or(j.outcome IN ('failed', 'unjudged')) OVER conversation AS judge_failed
    FROM scored_turns t
    JOIN scenarios s USING (run_id, eval_set_id, case_id)
    LEFT JOIN scored_judgements j
        ON j.turn_id = t.turn_id AND j.metric = 'per_turn_user_simulator_quality_v1'
    WHERE NOT t.is_error
    WINDOW conversation AS (PARTITION BY t.run_id, t.eval_set_id, t.case_id, t.repeat)
),
turn_rows AS (
    SELECT DISTINCT ON (turn_id) * FROM turns
),
votes AS (
    SELECT
        turn_id,
        coalesce(list(score ORDER BY sample) FILTER (step = 'turn' AND outcome = 'answered'), [])
            AS turn_votes,
        coalesce(list(score ORDER BY sample) FILTER (step = 'stop' AND outcome = 'answered'), [])
            AS stop_votes,
        arg_min(rationale, sample) FILTER (step = 'turn' AND outcome = 'answered') AS rationale
    FROM scored_judgements
    WHERE metric = 'per_turn_user_simulator_quality_v1'
    GROUP BY turn_id
),
scored AS (
    SELECT
        t.*, v.turn_votes, v.stop_votes, v.rationale,
        CASE WHEN t.turn_index = 0
            THEN (regexp_replace(t.user_text, '^\s+|\s+$', '', 'g')
                  = regexp_replace(t.starting_prompt, '^\s+|\s+$', '', 'g'))::DOUBLE
            ELSE tg_vote(coalesce(v.turn_votes, [])).score
        END AS own,
        CASE WHEN t.is_last THEN tg_vote(coalesce(v.stop_votes, [])).score END AS stop
    FROM turn_rows t
    LEFT JOIN votes v USING (turn_id)
)
SELECT
    turn_id,
    CASE WHEN NOT unscored THEN
        CASE WHEN stop = 0.0 THEN 0.0 ELSE coalesce(own, 0.0) END
    END AS score,
    json_object(
        'votes', turn_votes, 'stop_votes', stop_votes, 'rationale', rationale,
        'reason', CASE
            WHEN unscored THEN problem
            WHEN stop = 0.0 THEN 'the stop check: the conversation should have ended otherwise'
            WHEN own IS NULL THEN 'no vote could be read: counts as 0.0, as in ADK'
        END,
        'judge_error', CASE WHEN unscored THEN judge_failed ELSE false END
    ) AS detail
FROM scored
UNION ALL
SELECT
    t.turn_id, NULL,
    json_object('reason', 'no conversation scenario: it rates ADK''s user simulator, '
                || 'which only conversation scenarios have')
FROM scored_turns t
LEFT JOIN scenarios s USING (run_id, eval_set_id, case_id)
WHERE t.case_id IS NOT NULL AND s.case_id IS NULL AND NOT t.is_error
