-- metric: final_response_match_v2
-- better: higher
-- range: 0..1
-- needs: expected
-- judge: adk
-- One row per judged turn: ADK's final_response_match_v2. An LLM judge reads the user's
-- message, the response and the reference, and answers valid or invalid, num_samples times
-- (judgements / scored_judgements). Valid votes 1, invalid 0, an unreadable answer not at
-- all; more valid than invalid votes scores 1.0, a tie or fewer 0.0, no vote at all leaves
-- the turn not evaluated, and so does a failed call (as in ADK).
-- detail: {votes: [1.0, 0.0, null, ...], rationale, reason, judge_error}
SELECT
    turn_id,
    vote.score,
    tg_judge_detail(vote.score, problem, failed, unjudged,
        json_object('votes', scores, 'rationale', rationales[vote.pick])) AS detail
FROM (
    SELECT *,
        CASE WHEN failed OR unjudged THEN {'score': NULL::DOUBLE, 'pick': NULL::BIGINT}
             ELSE tg_vote(scores) END AS vote
    FROM tg_judged('final_response_match_v2')
)
