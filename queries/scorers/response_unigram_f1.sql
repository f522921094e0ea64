-- metric: response_unigram_f1
-- better: higher
-- needs: expected
-- One row per turn with an expectation: plain unigram F1 of the final response against the
-- reference: lower-cased [a-z0-9]+ tokens, clipped counts, no stemming (tg_unigram_counts).
-- Easier to reason about than ROUGE; empty text scores 0.0.
-- detail: {precision, recall, reference_missing}
WITH counted AS (
    SELECT
        e.turn_id,
        e.final_text IS NULL AS reference_missing,
        tg_unigram_counts(t.final_text, e.final_text) AS counts
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
