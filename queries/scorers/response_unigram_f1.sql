-- metric: response_unigram_f1
-- better: higher
-- needs: expected
-- range: 0..1
-- One row per turn with an expectation: plain unigram F1 of the final response against the
-- reference: lower-cased [a-z0-9]+ tokens, clipped counts, no stemming (tg_unigram_counts).
-- Easier to reason about than ROUGE; empty text scores 0.0.
-- detail: {precision, recall, reference_missing}
SELECT turn_id, response.score, response.detail
FROM (
    SELECT
        e.turn_id,
        tg_response_score(
            tg_unigram_counts(t.final_text, e.final_text), e.final_text IS NULL
        ) AS response
    FROM scored_expected e
    JOIN scored_turns t USING (turn_id)
)
