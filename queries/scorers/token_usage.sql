-- metric: token_usage
-- better: lower
-- needs: nothing
-- range: 0..
-- aliases: token_usage_v1
-- unit: tokens
-- One row per turn: input + output tokens, as ADK's token_usage_v1 (output includes
-- reasoning tokens). NULL when no model call reported usage.
-- detail: {input, output, reasoning, cached}, each NULL when nobody reported it
SELECT
    turn_id,
    total_tokens::DOUBLE AS score,
    json_object(
        'input', input_tokens, 'output', output_tokens,
        'reasoning', reasoning_tokens, 'cached', cached_tokens
    ) AS detail
FROM scored_turns
