-- metric: response_match_score
-- better: higher
-- needs: expected
-- range: 0..1
-- One row per turn with an expectation: ADK's ROUGE-1 F-measure of the final response
-- against the reference (ADK's tokenizer with Porter stemming; tg_rouge_counts counts the
-- shared tokens). A missing response or reference counts as empty text and scores 0.0, as
-- in ADK. detail: {precision, recall, reference_missing}
SELECT turn_id, response.score, response.detail
FROM (
    SELECT
        e.turn_id,
        tg_response_score(
            tg_rouge_counts(t.final_text, e.final_text), e.final_text IS NULL
        ) AS response
    FROM scored_expected e
    JOIN scored_turns t USING (turn_id)
)
