-- The three levels into `scores`, with each row's status.
INSERT INTO scores
SELECT
    getvariable('tg_scoring_id'), level, run_id, eval_set_id, case_id, repeat, turn_index, turn_id,
    metric, score, threshold, passed,
    CASE
        WHEN is_error THEN 'error'
        WHEN score IS NULL THEN 'not_evaluated'
        WHEN passed IS NULL THEN 'informational'
        WHEN passed THEN 'passed'
        ELSE 'failed'
    END,
    detail
FROM level_turn;

INSERT INTO scores
SELECT
    getvariable('tg_scoring_id'), 'case', run_id, eval_set_id, case_id, repeat, NULL, NULL,
    metric, score, coalesce(threshold, max_bound),
    passes,
    CASE
        WHEN errored THEN 'error'
        WHEN score IS NULL THEN 'not_evaluated'
        WHEN passes IS NULL THEN 'informational'
        WHEN passes THEN 'passed'
        ELSE 'failed'
    END,
    json_object('turns', turns, 'evaluated', evaluated, 'max', worst_high)
FROM (
    SELECT *,
        CASE WHEN gating AND NOT errored AND score IS NOT NULL
                  AND (threshold IS NOT NULL OR max_bound IS NOT NULL)
            THEN coalesce(CASE better WHEN 'higher' THEN score >= threshold
                                      ELSE score <= threshold END, true)
                 AND coalesce(worst_high <= max_bound, true)
        END AS passes
    FROM level_case
);

INSERT INTO scores
SELECT
    getvariable('tg_scoring_id'), 'run', run_id, NULL, NULL, NULL, NULL, NULL,
    metric, mean, coalesce(p95_bound, p50_bound), passes,
    CASE
        WHEN mean IS NULL THEN 'not_evaluated'
        WHEN passes IS NULL THEN 'informational'
        WHEN passes THEN 'passed'
        ELSE 'failed'
    END,
    json_object(
        'p50', p50, 'p95', p95, 'max', max, 'evaluated', evaluated, 'errored', errored,
        'failed_turns', failed_turns, 'p50_bound', p50_bound, 'p95_bound', p95_bound
    )
FROM (
    SELECT *,
        CASE WHEN gating AND mean IS NOT NULL AND (p50_bound IS NOT NULL OR p95_bound IS NOT NULL)
            THEN coalesce(p50 <= p50_bound, true) AND coalesce(p95 <= p95_bound, true)
        END AS passes
    FROM level_run
);
