-- metric: cost_usd
-- better: lower
-- needs: nothing
-- range: 0..
-- unit: USD
-- One row per turn: what its model calls cost at the `prices` table's rates (USD per 1M
-- tokens), AgentTool internals included since they are paid for. Cached input tokens are
-- charged at the cached rate, reasoning tokens (part of output) at the reasoning rate.
-- NULL when any call's model has no price or reported no tokens: unknown is never 0.
-- detail: {calls, priced_calls, unpriced_models: [...]}
WITH priced AS (
    SELECT
        c.turn_id,
        c.model,
        p.model IS NOT NULL AND c.input_tokens IS NOT NULL AND c.output_tokens IS NOT NULL AS known,
        (  (c.input_tokens - coalesce(c.cached_tokens, 0)) * p.input
         + coalesce(c.cached_tokens, 0) * coalesce(p.cached_input, p.input)
         + c.output_tokens * p.output
         + coalesce(c.reasoning_tokens, 0) * (coalesce(p.reasoning, p.output) - p.output)
        ) / 1e6 AS usd
    FROM scored_llm_calls c
    LEFT JOIN LATERAL (
        -- The longest price key naming this model: "gemini-2.5-flash" prices
        -- "gemini-2.5-flash-001" and "models/gemini-2.5-flash".
        SELECT * FROM prices p
        WHERE c.model = p.model OR starts_with(c.model, p.model || '-') OR ends_with(c.model, '/' || p.model)
        ORDER BY length(p.model) DESC
        LIMIT 1
    ) p ON true
    WHERE NOT c.is_error OR c.input_tokens IS NOT NULL
)
SELECT
    turn_id,
    CASE WHEN bool_and(known) THEN sum(usd) END AS score,
    json_object(
        'calls', count(*),
        'priced_calls', count(*) FILTER (known),
        'unpriced_models', coalesce(list(DISTINCT coalesce(model, '(unknown)')) FILTER (NOT known), [])
    ) AS detail
FROM priced
GROUP BY turn_id
