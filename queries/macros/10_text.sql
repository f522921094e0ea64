-- Token-overlap arithmetic for the response metrics (response_match_score = ADK's ROUGE-1,
-- response_unigram_f1). Each macro takes two token lists, VARCHAR[]: the actual response's
-- and the reference's, as `tg_rouge_tokens` / `tg_unigram_tokens` (Python functions,
-- registered in tracegrade.scoring.functions) produce them. A NULL list counts as empty.
--
--   tg_token_counts(actual, reference)    STRUCT(overlap BIGINT, actual BIGINT, reference BIGINT)
--                                         overlap = clipped unigram overlap (per distinct token,
--                                         the smaller of its two counts, summed); actual and
--                                         reference = the lists' lengths
--   tg_token_precision(actual, reference) DOUBLE  overlap / actual tokens (0.0 if none)
--   tg_token_recall(actual, reference)    DOUBLE  overlap / reference tokens (0.0 if none)
--   tg_token_f1(actual, reference)        DOUBLE  2PR / (P + R), 0.0 without overlap; the same
--                                         arithmetic, in the same order, as rouge-score, so
--                                         the scores are ADK's to the last bit
--
-- A macro is expanded in place, so an argument used five times would be evaluated five times:
-- with `tg_token_f1(tg_rouge_tokens(a), tg_rouge_tokens(b))` that is five Python calls a row.
-- `list_transform([x], lambda v: ...)[1]` binds each argument to a name once instead; it
-- costs under 10% on plain columns. Per-row list lambdas measured faster than unnesting the
-- tokens and grouping, and the overlap only visits tokens the two lists share.

CREATE OR REPLACE MACRO tg_token_counts(actual_tokens, reference_tokens) AS
    list_transform(
        [{
            'actual': coalesce(actual_tokens, []::VARCHAR[]),
            'reference': coalesce(reference_tokens, []::VARCHAR[])
        }],
        lambda pair: {
            'overlap': coalesce(list_sum(list_transform(
                list_intersect(pair.actual, pair.reference),
                lambda shared: least(
                    len(list_filter(pair.actual, lambda token: token = shared)),
                    len(list_filter(pair.reference, lambda token: token = shared))
                )
            )), 0)::BIGINT,
            'actual': len(pair.actual)::BIGINT,
            'reference': len(pair.reference)::BIGINT
        }
    )[1];

-- From counts {overlap, actual, reference} (tg_token_counts, or the tg_rouge_counts and
-- tg_unigram_counts functions) to rouge-score's numbers: precision = overlap / max(actual, 1),
-- recall = overlap / max(reference, 1), F = 2PR / (P + R), and 0.0 without overlap.
CREATE OR REPLACE MACRO tg_counts_precision(c) AS c.overlap::DOUBLE / greatest(c.actual, 1);

CREATE OR REPLACE MACRO tg_counts_recall(c) AS c.overlap::DOUBLE / greatest(c.reference, 1);

CREATE OR REPLACE MACRO tg_counts_f1(c) AS
    list_transform([c], lambda k: CASE
        WHEN k.overlap > 0 THEN
            2 * tg_counts_precision(k) * tg_counts_recall(k)
              / (tg_counts_precision(k) + tg_counts_recall(k))
        ELSE 0.0
    END)[1];

-- tg_response_score(counts, reference_missing): a response metric's row from its counts,
-- STRUCT(score DOUBLE, detail JSON): the F-measure, and {precision, recall,
-- reference_missing}. The counts are bound once (see above): they cost a Python call.
CREATE OR REPLACE MACRO tg_response_score(counts, reference_missing) AS
    list_transform([counts], lambda c: {
        'score': tg_counts_f1(c),
        'detail': json_object(
            'precision', tg_counts_precision(c),
            'recall', tg_counts_recall(c),
            'reference_missing', reference_missing
        )
    })[1];

-- The same on two token lists.
CREATE OR REPLACE MACRO tg_token_precision(actual_tokens, reference_tokens) AS
    tg_counts_precision(tg_token_counts(actual_tokens, reference_tokens));

CREATE OR REPLACE MACRO tg_token_recall(actual_tokens, reference_tokens) AS
    tg_counts_recall(tg_token_counts(actual_tokens, reference_tokens));

CREATE OR REPLACE MACRO tg_token_f1(actual_tokens, reference_tokens) AS
    tg_counts_f1(tg_token_counts(actual_tokens, reference_tokens));
