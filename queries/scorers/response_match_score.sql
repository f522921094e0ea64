-- metric: response_match_score
-- better: higher
-- needs: expected
-- One row per turn with an expectation: ADK's ROUGE-1 F-measure of the final response
-- against the reference (ADK's tokenizer with Porter stemming, via tg_rouge_tokens). A
-- missing response or reference counts as empty text and scores 0.0, as in ADK.
-- detail: {precision, recall, reference_missing}
WITH tokens AS (
    SELECT
        e.turn_id,
        e.final_text IS NULL AS reference_missing,
        tg_rouge_tokens(coalesce(t.final_text, '')) AS actual,
        tg_rouge_tokens(coalesce(e.final_text, '')) AS reference
    FROM scored_expected e
    JOIN scored_turns t USING (turn_id)
)
SELECT
    turn_id,
    tg_token_f1(actual, reference) AS score,
    json_object(
        'precision', tg_token_precision(actual, reference),
        'recall', tg_token_recall(actual, reference),
        'reference_missing', reference_missing
    ) AS detail
FROM tokens
