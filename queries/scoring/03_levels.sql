-- From per-turn scores (turn_scores) to the rows of `scores`, at three levels, using the
-- criteria in scoring_criteria; each row gets its status. A turn that errored gets no
-- score: errors are not failures.
--
-- status: error (the turn, or a turn of the case repeat, crashed), not_evaluated (no
-- score), not_applicable (the metric needs expected turns and the case has none),
-- informational (no gate at this level), passed or failed.

-- tg_gates_passed(gating, better, score, worst, threshold, max): whether a score is within
-- its criterion: `threshold` on the score (higher: score >= t; lower: score <= t) and `max`
-- on the worst turn's score. NULL (no verdict) unless gating, scored and given a bound.
CREATE OR REPLACE TEMP MACRO tg_gates_passed(gating, better, score, worst, threshold, max) AS
    CASE WHEN gating AND score IS NOT NULL AND (threshold IS NOT NULL OR max IS NOT NULL)
        THEN coalesce(CASE better WHEN 'higher' THEN score >= threshold
                                  ELSE score <= threshold END, true)
             AND coalesce(worst <= max, true)
    END;

-- tg_status(errored, score, passed): a row's status, as above.
CREATE OR REPLACE TEMP MACRO tg_status(errored, score, passed) AS
    CASE
        WHEN errored THEN 'error'
        WHEN score IS NULL THEN 'not_evaluated'
        WHEN passed IS NULL THEN 'informational'
        WHEN passed THEN 'passed'
        ELSE 'failed'
    END;

-- Per turn: the score, held to `threshold` and `max`.
CREATE OR REPLACE TEMP TABLE level_turn AS
WITH rows AS (
    SELECT s.metric, t.turn_id, t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index,
           t.is_error, CASE WHEN NOT t.is_error THEN s.score END AS score, s.detail
    FROM turn_scores s
    JOIN scored_turns t USING (turn_id)
    -- A conversation scenario's turns are not applicable to a metric needing expected turns
    -- (per case, below), whatever its scorer said (ADK's judges: expected_invocation is
    -- required): a turn row would make the case not evaluated as well.
    WHERE NOT EXISTS (
        SELECT 1 FROM scored_scenario_cases sc JOIN scoring_criteria c ON c.needs_expected
        WHERE c.metric = s.metric AND sc.run_id = t.run_id AND sc.eval_set_id = t.eval_set_id
          AND sc.case_id = t.case_id)
    UNION ALL
    -- An errored turn a metric gave no row still counts for that metric, as an error.
    SELECT c.metric, t.turn_id, t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index,
           true, NULL, NULL
    FROM scored_turns t
    JOIN scoring_criteria c ON t.has_expected OR NOT c.needs_expected
    WHERE t.is_error
      AND NOT EXISTS (SELECT 1 FROM turn_scores s WHERE s.turn_id = t.turn_id AND s.metric = c.metric)
    UNION ALL
    -- An eval turn with no expectation (its case's expectations never arrived) is not
    -- evaluated by a gating metric that needs one, and says why. A conversation scenario's
    -- turns have none by design: such metrics are not applicable there (below, per case).
    SELECT c.metric, t.turn_id, t.run_id, t.eval_set_id, t.case_id, t.repeat, t.turn_index,
           false, NULL, json_object('reason', 'no expectation: no expected turn was recorded for it')
    FROM scored_turns t
    JOIN scoring_criteria c ON c.gating AND c.needs_expected
    WHERE t.case_id IS NOT NULL AND NOT t.has_expected AND NOT t.is_error
      AND NOT EXISTS (
          SELECT 1 FROM scored_scenario_cases s
          WHERE s.run_id = t.run_id AND s.eval_set_id = t.eval_set_id AND s.case_id = t.case_id)
),
judged AS (
    SELECT
        r.*,
        coalesce(c.threshold, c.max) AS bound,
        tg_gates_passed(c.gating, c.better, r.score, r.score, c.threshold, c.max) AS passed
    FROM rows r
    JOIN scoring_criteria c USING (metric)
)
SELECT
    'turn' AS level, run_id, eval_set_id, case_id, repeat, turn_index, turn_id, metric, score,
    bound AS threshold, passed,
    tg_status(is_error, score, passed) AS status,
    is_error,
    detail
FROM judged;

-- Per case repeat of an eval run: ADK's mean of the turn scores, held to `threshold`; `max`
-- holds when every turn is within it. A scorer may weigh its turns (detail.weight): ADK's
-- rubric metrics average every rubric score of every turn, not the turns' means.
CREATE OR REPLACE TEMP TABLE level_case AS
WITH grouped AS (
    SELECT
        l.run_id, l.eval_set_id, l.case_id, l.repeat, l.metric,
        sum(l.score * coalesce((l.detail->>'weight')::DOUBLE, 1))
            / sum(coalesce((l.detail->>'weight')::DOUBLE, 1)) FILTER (l.score IS NOT NULL) AS score,
        max(l.score) AS worst_high,
        bool_or(l.is_error) AS errored,
        count(l.score) AS evaluated,
        count(*) AS turns
    FROM level_turn l
    WHERE l.case_id IS NOT NULL
    GROUP BY ALL
),
judged AS (
    SELECT
        g.*,
        coalesce(c.threshold, c.max) AS bound,
        tg_gates_passed(
            c.gating AND NOT g.errored, c.better, g.score, g.worst_high, c.threshold, c.max
        ) AS passed
    FROM grouped g
    JOIN scoring_criteria c USING (metric)
)
SELECT
    'case' AS level, run_id, eval_set_id, case_id, repeat, metric, score, bound AS threshold,
    passed,
    tg_status(errored, score, passed) AS status,
    json_object('turns', turns, 'evaluated', evaluated, 'max', worst_high) AS detail
FROM judged
UNION ALL
-- A case repeat with no expected turn (a conversation scenario: the simulated user writes
-- its messages) gets no score from a metric that compares with expected turns: it is
-- not applicable there, neither passed nor failed.
SELECT
    'case', r.run_id, r.eval_set_id, r.case_id, r.repeat, c.metric, NULL,
    coalesce(c.threshold, c.max), NULL, 'not_applicable',
    json_object('reason', 'needs expected turns; a conversation scenario has none')
FROM (
    SELECT DISTINCT t.run_id, t.eval_set_id, t.case_id, t.repeat
    FROM scored_turns t
    JOIN scored_scenario_cases USING (run_id, eval_set_id, case_id)
) r
CROSS JOIN scoring_criteria c
WHERE c.needs_expected;

-- Per run (or per scored selection of traffic): the distribution of the turn scores, held
-- to the run-level budgets p50 and p95.
CREATE OR REPLACE TEMP TABLE level_run AS
WITH grouped AS (
    SELECT
        l.run_id, l.metric,
        avg(l.score) AS mean,
        quantile_cont(l.score, [0.5, 0.95]) AS quantiles,
        max(l.score) AS max,
        count(l.score) AS evaluated,
        count(*) FILTER (l.is_error) AS errored,
        count(*) FILTER (l.passed = false) AS failed_turns,
        count(*) FILTER (l.status = 'not_evaluated') AS not_evaluated,
        -- Why turns were not evaluated: the scorer's detail.reason (a judge that failed,
        -- arguments not captured, no expectation), else that the metric had no value.
        list_sort(list_distinct(coalesce(list(
            coalesce(l.detail->>'reason', 'the metric had no value for it')
        ) FILTER (l.status = 'not_evaluated'), []))) AS reasons
    FROM level_turn l
    GROUP BY ALL
),
judged AS (
    SELECT
        g.*, c.p50 AS p50_bound, c.p95 AS p95_bound,
        CASE WHEN c.gating AND g.mean IS NOT NULL AND (c.p50 IS NOT NULL OR c.p95 IS NOT NULL)
            THEN coalesce(g.quantiles[1] <= c.p50, true) AND coalesce(g.quantiles[2] <= c.p95, true)
        END AS passed
    FROM grouped g
    JOIN scoring_criteria c USING (metric)
)
SELECT
    'run' AS level, run_id, metric, mean AS score, coalesce(p95_bound, p50_bound) AS threshold,
    passed,
    tg_status(false, mean, passed) AS status,
    json_object(
        'p50', quantiles[1], 'p95', quantiles[2], 'max', max, 'evaluated', evaluated,
        'errored', errored, 'failed_turns', failed_turns, 'p50_bound', p50_bound,
        'p95_bound', p95_bound, 'not_evaluated', not_evaluated, 'reasons', reasons
    ) AS detail
FROM judged;

-- Per case: how its repeats went, and the verdict under the repeat policy (variables
-- tg_policy, all | majority | at_least, and tg_policy_k). A repeat with an errored turn is
-- an error: left out of the policy, counted against the error budget instead. A repeat
-- fails when a gating metric failed, passes when one passed and none failed (ADK's rule);
-- with no gating metric evaluated it is not_evaluated. A case of the run's plan none of
-- whose repeats has a scored turn did not run (the run was stopped): not_run.
CREATE OR REPLACE TEMP TABLE case_outcomes AS
WITH repeats AS (
    SELECT
        run_id, eval_set_id, case_id, repeat,
        bool_or(status = 'error') AS errored,
        bool_or(status = 'failed') AS failed,
        bool_or(status = 'passed') AS passed,
        list(metric) FILTER (status = 'failed') AS failed_metrics
    FROM level_case
    GROUP BY ALL
),
counted AS (
    SELECT
        run_id, eval_set_id, case_id,
        count(*)::INTEGER AS repeats,
        count(*) FILTER (NOT errored AND NOT failed AND passed)::INTEGER AS passed_repeats,
        count(*) FILTER (NOT errored AND failed)::INTEGER AS failed_repeats,
        count(*) FILTER (errored)::INTEGER AS errored_repeats,
        list_sort(list_distinct(flatten(coalesce(
            list(failed_metrics) FILTER (NOT errored AND failed_metrics IS NOT NULL), [])))) AS failed_metrics
    FROM repeats
    GROUP BY ALL
),
never_ran AS (
    SELECT DISTINCT p.run_id, p.eval_set_id, p.case_id
    FROM scored_plan p
    WHERE NOT EXISTS (
        SELECT 1 FROM counted c
        WHERE c.run_id = p.run_id AND c.eval_set_id = p.eval_set_id AND c.case_id = p.case_id)
)
SELECT
    *,
    CASE
        WHEN passed_repeats + failed_repeats = 0 THEN
            CASE WHEN errored_repeats > 0 THEN 'error' ELSE 'not_evaluated' END
        WHEN CASE getvariable('tg_policy')
                WHEN 'majority' THEN passed_repeats * 2 > passed_repeats + failed_repeats
                WHEN 'at_least' THEN passed_repeats >= getvariable('tg_policy_k')
                ELSE failed_repeats = 0
             END THEN 'passed'
        ELSE 'failed'
    END AS verdict,
    0 < passed_repeats AND passed_repeats < passed_repeats + failed_repeats AS flaky
FROM counted
UNION ALL BY NAME
SELECT
    run_id, eval_set_id, case_id, 0 AS repeats, 0 AS passed_repeats, 0 AS failed_repeats,
    0 AS errored_repeats, []::VARCHAR[] AS failed_metrics, 'not_run' AS verdict, false AS flaky
FROM never_ran;

-- The turns of the run's plan that were never scored, for the gate: a run with any is
-- incomplete (see scoring/verdict.py).
CREATE OR REPLACE TEMP TABLE turns_not_run AS
SELECT p.*
FROM scored_plan p
WHERE NOT EXISTS (
    SELECT 1 FROM scored_turns t
    WHERE t.run_id = p.run_id AND t.eval_set_id = p.eval_set_id AND t.case_id = p.case_id
      AND t.repeat = p.repeat AND t.turn_index = p.turn_index);
