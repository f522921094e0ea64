-- metric: tool_argument_grounding
-- better: higher
-- range: 0..1
-- needs: nothing
-- judge: tool_argument_grounding.prompt
-- One row per judged turn with tool arguments: the share of its tool calls' arguments that
-- are grounded, i.e. supported by the user's words, the conversation, the agent's
-- instructions or the result of an earlier tool call, as an LLM judge (judge_model_options)
-- rates each argument yes or no, num_samples times (majority; a tie is no). The case scores
-- the share over all its arguments (`weight`). Turns whose arguments were not captured are
-- not evaluated.
-- detail: {arguments: [{key, verdict, score, rationale}], weight, rationale, reason, judge_error}
SELECT
    turn_id,
    score,
    tg_judge_detail(score, problem, failed, unjudged,
        json_object('arguments', items, 'weight', weight,
                    'rationale', list_filter(items, lambda i: i.score = 0)[1].rationale)) AS detail
FROM tg_item_turns('tool_argument_grounding')
