-- The three levels into `scores`, in one statement: one append to the table rather than
-- three, each row with the columns of its level (a case row has no turn, a run row no case).
INSERT INTO scores
SELECT getvariable('tg_scoring_id'), level, run_id, eval_set_id, case_id, repeat, turn_index,
       turn_id, metric, score, threshold, passed, status, detail
FROM level_turn
UNION ALL
SELECT getvariable('tg_scoring_id'), level, run_id, eval_set_id, case_id, repeat, NULL, NULL,
       metric, score, threshold, passed, status, detail
FROM level_case
UNION ALL
SELECT getvariable('tg_scoring_id'), level, run_id, NULL, NULL, NULL, NULL, NULL,
       metric, score, threshold, passed, status, detail
FROM level_run;

INSERT INTO case_results
SELECT getvariable('tg_scoring_id'), run_id, eval_set_id, case_id, repeats, passed_repeats,
       failed_repeats, errored_repeats, verdict, flaky, failed_metrics
FROM case_outcomes;
