-- What every scorer reads, for the turns in `scored_turns` (made first from the selection),
-- from the selected traces' calls and eval cases (00_selected.sql: stored turn facts where
-- fresh, else rebuilt from spans; tool arguments in canonical form, tg_canonical_json, there;
-- 00_expected.sql: the eval cases' expected turns).
--
-- The scorer-input contract: a metric's SQL (queries/scorers/, or a user's --metrics folder)
-- reads the tables this file and 02_derived.sql make, and `prices`. Each opens with a
-- header (name: what one row is; Columns:), which docs/metrics.md is generated from and
-- tests/test_docs.py holds to the tables' actual columns, as docs/data-model.md is held to
-- the views'. A column added here is documented here, or the docs check fails.

-- scored_turns: one row per turn being scored: the selection's turns (an eval run's, or a
-- traffic sample's), made before queries/scoring/01_inputs.sql runs (prepare_inputs in
-- scoring/engine.py).
--
-- Columns: every column of turns, and
--   has_expected           the eval set recorded an expected turn for it (false for traffic)

-- prices: one row per priced model, USD per 1M tokens: the shipped table
-- (scoring/prices.json) with the criteria file's `tracegrade.prices` over it
-- (scoring/prices.py, load_prices).
--
-- Columns:
--   model                  the model name, as the spans record it
--   input                  per 1M prompt tokens
--   cached_input           per 1M cached prompt tokens
--   output                 per 1M output tokens
--   reasoning              per 1M thought tokens (NULL: the output price)

-- scored_calls: each scored turn's own tool calls in order (AgentTool internals excluded;
-- 00_selected.sql, scoring_turn_calls).
--
-- Columns:
--   turn_id                the turn (see scored_turns)
--   seq                    1, 2, ... in start order within the turn
--   name                   the tool
--   args                   the arguments in canonical JSON (tg_canonical_json: keys sorted,
--                          true as 1, 3.0 as 3), as ADK compares them; NULL when not captured,
--                          or when the model sent none (tool_calls.args_omitted), which ADK
--                          tells from `{}`
--   args_captured          whether the arguments were recorded (ADK records none by default)
--   is_error               the call failed
--   error_kind             returned_error ({"error": ...}), unknown_tool, raised, or error
--   error_type             error.type, e.g. TOOL_ERROR, ValueError
--   error_message          the tool's own message where it returned one, else the span's status message
--   parallel_group         calls sharing it came from one model response, or from branches
--                          of a ParallelAgent, so their relative order depends on timing
--   agent_name             the agent that called it
--   start_ns               start, epoch ns
--   end_ns                 end, epoch ns
--   raw_args               the arguments as sent (JSON text), for the schema check and to show
--   result                 the result as JSON text, when captured
--   tool_type              ADK's tool class: FunctionTool, AgentTool, TransferToAgentTool...
--   tool_offered           the tool was among those the model was given for this call; NULL
--                          when none were recorded
--   tool_schema            that tool's parameter schema as the model was given it (JSON text)
CREATE OR REPLACE TEMP TABLE scored_calls AS
SELECT c.*
FROM scoring_turn_calls c
JOIN scored_turns t USING (turn_id);

-- scored_llm_calls: each scored turn's model calls, AgentTool internals included (flagged).
--
-- Columns:
--   turn_id                the turn (see scored_turns)
--   seq                    1, 2, ... in start order within the turn; NULL inside an AgentTool
--   in_agent_tool          made by an agent an AgentTool ran
--   model                  the model asked
--   agent_name             the agent that called the model
--   input_tokens           prompt tokens (NULL when not reported)
--   output_tokens          output tokens, thoughts included
--   reasoning_tokens       thought tokens (part of output)
--   cached_tokens          cached prompt tokens (part of input)
--   is_error               the call raised
--   start_ns               start, epoch ns
--   end_ns                 end, epoch ns
CREATE OR REPLACE TEMP TABLE scored_llm_calls AS
SELECT l.*
FROM scoring_turn_llm_calls l
JOIN scored_turns t USING (turn_id);

-- scored_expected: the expected turn paired with each scored turn of an eval run (none
-- for traffic).
--
-- Columns:
--   turn_id                the scored turn
--   user_text              the eval set's user message for that turn
--   final_text             the eval set's reference response (NULL when it gives none)
--   n_tool_calls           how many tool calls the eval set expects
CREATE OR REPLACE TEMP TABLE scored_expected AS
SELECT t.turn_id, e.user_text, e.final_text, e.n_tool_calls
FROM scored_turns t
JOIN scoring_expected_turns e
  ON e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
 AND e.case_id = t.case_id AND e.turn_index = t.turn_index;

-- scored_expected_calls: the expected tool calls of those turns, in order. An expected call
-- given without arguments keeps them NULL, apart from `{}`, as ADK keeps None apart from {}
-- (docs/metrics.md, "Calls without arguments").
--
-- Columns:
--   turn_id                the scored turn
--   seq                    1, 2, ... in the eval set's order
--   name                   the tool expected
--   args                   the expected arguments in canonical JSON; NULL when given none
--   raw_args               the arguments as the eval set wrote them, to show (`true`, not 1)
CREATE OR REPLACE TEMP TABLE scored_expected_calls AS
SELECT t.turn_id, e.seq, e.name, e.args, e.raw_args
FROM scored_turns t
JOIN (
    -- Canonical once a call of the eval set, not once for each of its repeats' turns.
    SELECT run_id, eval_set_id, case_id, turn_index, seq, name,
           tg_canonical_json(args) AS args, args::VARCHAR AS raw_args
    FROM tg_expected_tool_calls('scoring_expected_turns')
) e
  ON e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
 AND e.case_id = t.case_id AND e.turn_index = t.turn_index;

-- scored_scenario_cases: the scored eval run's conversation scenarios (the simulated user
-- wrote their messages; their eval_case span records the scenario). Metrics that need
-- expected turns do not apply to them (03_levels.sql). Empty for traffic.
--
-- Columns:
--   run_id                 the eval run
--   eval_set_id            the eval set
--   case_id                the case
CREATE OR REPLACE TEMP TABLE scored_scenario_cases AS
SELECT DISTINCT
    attributes->>'tracegrade.run_id' AS run_id,
    attributes->>'tracegrade.eval_set_id' AS eval_set_id,
    attributes->>'tracegrade.case_id' AS case_id
FROM scoring_case_spans
WHERE json_extract(attributes->>'tracegrade.expected', '$.scenario') IS NOT NULL
  AND attributes->>'tracegrade.run_id' IN (SELECT run_id FROM scored_turns);

-- scored_plan: every turn each case repeat of the scored eval run set out to replay, run
-- or not (a run stopped part-way by Ctrl-C leaves some out). A conversation scenario
-- expects no turns, but its simulated user always opens with the starting prompt: its plan
-- is that turn 0, so a scenario never run is known as not run. Empty for traffic.
--
-- Columns:
--   run_id                 the eval run
--   eval_set_id            the eval set
--   case_id                the case
--   repeat                 the repeat, from 0
--   turn_index             the turn's position in the case, from 0
-- Sessions matched to an eval set (`score --evalset`, scoring/matching.py) have no eval
-- run span: scoring_case_repeats gives each case's repeats (its matched sessions; one for
-- a case no session matched, which is then not run). No rows for an eval run.
CREATE TEMP TABLE IF NOT EXISTS scoring_case_repeats (
    run_id VARCHAR, eval_set_id VARCHAR, case_id VARCHAR, repeats INTEGER
);

CREATE OR REPLACE TEMP TABLE scored_plan AS
WITH planned AS (
    SELECT run_id, eval_set_id, case_id, turn_index FROM scoring_expected_turns
    UNION ALL
    SELECT run_id, eval_set_id, case_id, 0 AS turn_index FROM scored_scenario_cases
)
SELECT p.run_id, p.eval_set_id, p.case_id,
       unnest(range(coalesce(m.repeats, r.repeats, 1))) AS repeat, p.turn_index
FROM planned p
LEFT JOIN eval_runs r USING (run_id)
LEFT JOIN scoring_case_repeats m USING (run_id, eval_set_id, case_id)
WHERE p.run_id IN (SELECT run_id FROM scored_turns WHERE run_id IS NOT NULL)
  AND (r.run_id IS NOT NULL OR m.run_id IS NOT NULL);

-- scored_judgements: the judge answers the scored turns' judged metrics use, filled by the
-- judge runner (scoring/judging): one row per answer (cached or new), per sample, and one
-- row for a turn no judge answered, saying why. outcome: answered, failed (after every
-- retry), unjudged (the judge budget was spent) or not_applicable (error says why).
--
-- Columns:
--   metric                 the judged metric
--   turn_id                the turn judged
--   judgement_id           the answer's row in `judgements` (the cache)
--   judge_model            the judge model
--   sample                 the sample, from 0
--   step                   `judge`, or each step of a metric that asks in steps
--                          (hallucinations_v1: segment, then validate)
--   outcome                answered, failed, unjudged or not_applicable
--   cached                 the answer came from the cache
--   response               the judge's answer as it came
--   score                  the answer's score, where the judge's format gives one
--   verdicts               the JSON the answer holds (fenced or bare)
--   rationale              the judge's reason
--   error                  why there is no answer (failed, not_applicable)
--   input_tokens           the judge call's prompt tokens
--   output_tokens          its output tokens
--   cost_usd               its cost at the prices table's rates
--   latency_ms             its wall-clock time in milliseconds
CREATE OR REPLACE TEMP TABLE scored_judgements (
    metric VARCHAR, turn_id VARCHAR, judgement_id VARCHAR, judge_model VARCHAR,
    sample INTEGER, step VARCHAR, outcome VARCHAR, cached BOOLEAN, response VARCHAR,
    score DOUBLE, verdicts JSON, rationale VARCHAR, error VARCHAR,
    input_tokens BIGINT, output_tokens BIGINT, cost_usd DOUBLE, latency_ms DOUBLE
);

-- tg_judged(m): one row per turn metric m has answers (or a reason) for: the answered
-- samples' scores, rationales and verdicts in sample order, whether a call failed or the
-- budget stopped the judging, and the reason the turn may have no score.
CREATE OR REPLACE TEMP MACRO tg_judged(m) AS TABLE
SELECT
    turn_id,
    count(*) FILTER (outcome = 'answered') AS answers,
    coalesce(list(score ORDER BY step, sample) FILTER (outcome = 'answered'), []) AS scores,
    coalesce(list(rationale ORDER BY step, sample) FILTER (outcome = 'answered'), []) AS rationales,
    coalesce(list(verdicts ORDER BY step, sample) FILTER (outcome = 'answered'), []) AS verdicts,
    bool_or(outcome = 'failed') AS failed,
    bool_or(outcome = 'unjudged') AS unjudged,
    CASE
        WHEN bool_or(outcome = 'unjudged') THEN 'not judged: the judge budget was spent'
        WHEN bool_or(outcome = 'failed')
            THEN 'judge call failed: ' || arg_min(error, sample) FILTER (outcome = 'failed')
        WHEN bool_or(outcome = 'not_applicable')
            THEN arg_min(error, sample) FILTER (outcome = 'not_applicable')
    END AS problem
FROM scored_judgements
WHERE metric = m
GROUP BY turn_id;

-- tg_vote(scores): ADK's majority vote over samples (llm_as_judge / rubric_based_evaluator):
-- 1.0 votes yes, any other score no, NULL not at all. More yes than no: 1.0; a tie or more
-- no, the first no; no votes: NULL. `pick` is the position of the sample that decided.
CREATE OR REPLACE TEMP MACRO tg_vote(scores) AS (
    CASE
        WHEN len(list_filter(scores, lambda s: s = 1.0))
             > len(list_filter(scores, lambda s: s <> 1.0))
            THEN {'score': 1.0::DOUBLE, 'pick': list_position(scores, 1.0)::BIGINT}
        WHEN len(list_filter(scores, lambda s: s <> 1.0)) > 0
            THEN {'score': list_filter(scores, lambda s: s <> 1.0)[1]::DOUBLE,
                  'pick': list_position(list_transform(scores, lambda s: coalesce(s <> 1.0, false)), true)::BIGINT}
        ELSE {'score': NULL::DOUBLE, 'pick': NULL::BIGINT}
    END
);

-- tg_judge_detail(score, problem, failed, unjudged, extra): a judged metric's detail:
-- `extra`, plus `reason` when the turn has no score and `judge_error` (true: not evaluated
-- because the judge failed or its answers could not be read, which the gate counts as
-- errors; false: judged; absent: not judged for another reason, such as the budget).
CREATE OR REPLACE TEMP MACRO tg_judge_detail(score, problem, failed, unjudged, extra) AS (
    json_merge_patch(extra::JSON, json_object(
        'reason', CASE WHEN score IS NULL THEN coalesce(problem, 'the judge''s answers could not be read') END,
        'judge_error', CASE
            WHEN score IS NOT NULL THEN false
            WHEN unjudged THEN NULL
            WHEN failed THEN true
            WHEN problem IS NOT NULL THEN NULL
            ELSE true
        END))
);

-- tg_rubric_turns(m): ADK's rubric metrics per turn: each rubric decided by majority over
-- the samples' verdicts, the turn's score the mean of the decided scores; `weight` counts
-- them (ADK's case score is the mean over every rubric score of every turn).
CREATE OR REPLACE TEMP MACRO tg_rubric_turns(m) AS TABLE
WITH entries AS (
    SELECT turn_id, sample, unnest(list_transform(
        from_json(verdicts, '[{"rubric_id": "VARCHAR", "score": "DOUBLE", "rationale": "VARCHAR"}]'),
        lambda v, i: {rubric_id: v.rubric_id, score: v.score, rationale: v.rationale, pos: i}
    ), recursive := true)
    FROM scored_judgements
    WHERE metric = m AND outcome = 'answered' AND verdicts IS NOT NULL
),
rubrics AS (
    SELECT turn_id, rubric_id, min(sample * 1000000 + pos) AS first_seen,
           tg_vote(list(score ORDER BY sample, pos)) AS vote,
           list(rationale ORDER BY sample, pos) AS rationales
    FROM entries
    GROUP BY turn_id, rubric_id
)
SELECT
    j.turn_id,
    CASE WHEN NOT any_value(j.failed OR j.unjudged) THEN avg(r.vote.score) END AS score,
    count(r.vote.score) AS weight,
    coalesce(list({'id': r.rubric_id, 'score': r.vote.score,
                   'rationale': r.rationales[coalesce(r.vote.pick, 1)]} ORDER BY r.first_seen)
        FILTER (r.rubric_id IS NOT NULL), []) AS rubrics,
    any_value(j.problem) AS problem,
    any_value(j.failed) AS failed,
    any_value(j.unjudged) AS unjudged
FROM tg_judged(m) j
LEFT JOIN rubrics r USING (turn_id)
GROUP BY j.turn_id;

-- tg_one_answer(m): metrics judged by one answer per turn (ADK's Vertex AI metrics).
CREATE OR REPLACE TEMP MACRO tg_one_answer(m) AS TABLE
SELECT
    turn_id,
    CASE WHEN NOT (failed OR unjudged) THEN scores[1] END AS score,
    tg_judge_detail(CASE WHEN NOT (failed OR unjudged) THEN scores[1] END, problem, failed,
        unjudged, json_object('rationale', rationales[1], 'verdicts', verdicts[1])) AS detail
FROM tg_judged(m);

-- tg_item_turns(m): template judges that answer {"verdicts": [{"key", "verdict",
-- "rationale"}]} (task_completion, tool_argument_grounding; yours may too): per turn, each
-- key decided by majority over the samples (yes 1, no 0, anything else no vote; a tie is
-- no), the turn's score the mean of the decided keys, `weight` their count.
CREATE OR REPLACE TEMP MACRO tg_item_turns(m) AS TABLE
WITH entries AS (
    SELECT turn_id, sample, unnest(list_transform(
        from_json(verdicts->'verdicts', '[{"key": "VARCHAR", "verdict": "VARCHAR", "rationale": "VARCHAR"}]'),
        lambda v, i: {key: coalesce(v.key, i::VARCHAR), verdict: v.verdict, rationale: v.rationale, pos: i}
    ), recursive := true)
    FROM scored_judgements
    WHERE metric = m AND outcome = 'answered' AND json_type(verdicts->'verdicts') = 'ARRAY'
),
items AS (
    SELECT turn_id, key, min(sample * 1000000 + pos) AS first_seen,
           tg_vote(list(CASE
               WHEN lower(trim(verdict)) IN ('yes', 'true', 'fulfilled', 'grounded') THEN 1.0
               WHEN lower(trim(verdict)) IN ('no', 'false', 'partly', 'partially', 'not_fulfilled',
                                             'ungrounded') THEN 0.0
           END ORDER BY sample, pos)) AS vote,
           list(verdict ORDER BY sample, pos) AS verdicts,
           list(rationale ORDER BY sample, pos) AS rationales
    FROM entries
    GROUP BY turn_id, key
)
SELECT
    j.turn_id,
    CASE WHEN NOT any_value(j.failed OR j.unjudged) THEN avg(i.vote.score) END AS score,
    count(i.vote.score) AS weight,
    coalesce(list({'key': i.key, 'verdict': i.verdicts[coalesce(i.vote.pick, 1)],
                   'score': i.vote.score, 'rationale': i.rationales[coalesce(i.vote.pick, 1)]}
                  ORDER BY i.first_seen) FILTER (i.key IS NOT NULL), []) AS items,
    any_value(j.problem) AS problem,
    any_value(j.failed) AS failed,
    any_value(j.unjudged) AS unjudged
FROM tg_judged(m) j
LEFT JOIN items i USING (turn_id)
GROUP BY j.turn_id;
