-- metric: response_match_score
-- better: higher
-- needs: expected
-- One row per turn with an expectation: ADK's ROUGE-1 F-measure of the final response
-- against the reference (ADK's tokenizer with Porter stemming; tg_rouge_counts counts the
-- shared tokens). A missing response or reference counts as empty text and scores 0.0, as
-- in ADK. detail: {precision, recall, reference_missing}
WITH counted AS (
    SELECT
        e.turn_id,
        e.final_text IS NULL AS reference_missing,
        tg_rouge_counts(t.final_text, e.final_text) AS counts
    FROM scored_expected e
    JOIN scored_turns t USING (turn_id)
)
SELECT
    turn_id,
    tg_counts_f1(counts) AS score,
    json_object(
        'precision', tg_counts_precision(counts),
        'recall', tg_counts_recall(counts),
        'reference_missing', reference_missing
    ) AS detail
FROM counted
