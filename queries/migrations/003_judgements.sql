-- judgements: one row per answer a judge model gave (or failed to give) about one turn for
-- one judged metric: the cache of every judged metric, and the data its SQL scorer reads.
-- A scoring asks for (metric, turn, judge_model, prompt_sha, config_sha, sample) and reuses
-- the latest answered row with that key, so scoring the same turns again with the same
-- judge, prompt and settings calls no model; a changed prompt (a rubric, the template) or
-- judge is a new key, judged anew. Each ADK-driven call is one row; num_samples gives
-- samples 0..n-1 of the same prompt.
--
-- Columns:
--   judgement_id       the row
--   judged_at          when the judge answered (or gave up)
--   scoring_id         the scoring that made the call
--   metric             the judged metric, e.g. final_response_match_v2
--   turn_id            the turn judged (a multi-turn judge's answers belong to the last turn)
--   judge_model        the judge as configured: a model name, or package.module:attr
--   model              the model that answered, as it names itself (what prices apply to)
--   prompt_sha         sha256 of the exact prompt text
--   config_sha         sha256 of the judge's generation config (temperature, ...), without
--                      transport settings such as retry options
--   sample             which sample of this prompt, from 0
--   step               what the call was for: judge, or for hallucinations_v1 segment and
--                      validate (one pair per response checked)
--   prompt             the prompt sent
--   response           the judge's answer text; NULL when it gave none
--   outcome            answered, or failed (every attempt raised or timed out: see error)
--   score              this answer's score, as the metric's parser reads it; NULL when it
--                      cannot be read (or the metric's SQL reads the answer itself)
--   verdicts           what the parser read, as JSON: per rubric, sentence, task or argument
--                      its verdict, score and rationale
--   rationale          the judge's reasoning, when it gave one
--   input_tokens       prompt tokens the judge reported
--   output_tokens      output tokens, thoughts included
--   reasoning_tokens   thought tokens (part of output_tokens)
--   cost_usd           the call's price (tokens × the price table); NULL when unpriced
--   latency_ms         the call's time in milliseconds, retries and waits included
--   attempts           calls made: 1, more after retries (429, 5xx, timeouts)
--   error              why the call failed, or the error code of an answer without text
CREATE TABLE judgements (
    judgement_id     VARCHAR PRIMARY KEY,
    judged_at        TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    scoring_id       VARCHAR NOT NULL,
    metric           VARCHAR NOT NULL,
    turn_id          VARCHAR NOT NULL,
    judge_model      VARCHAR NOT NULL,
    model            VARCHAR,
    prompt_sha       VARCHAR NOT NULL,
    config_sha       VARCHAR NOT NULL,
    sample           INTEGER NOT NULL,
    step             VARCHAR NOT NULL,
    prompt           VARCHAR NOT NULL,
    response         VARCHAR,
    outcome          VARCHAR NOT NULL,
    score            DOUBLE,
    verdicts         JSON,
    rationale        VARCHAR,
    input_tokens     BIGINT,
    output_tokens    BIGINT,
    reasoning_tokens BIGINT,
    cost_usd         DOUBLE,
    latency_ms       DOUBLE,
    attempts         INTEGER NOT NULL,
    error            VARCHAR
);

-- judge_usage: one row per judged metric of each scoring: how many judgements it used,
-- how many came from the cache, what the new calls cost, and what was left unjudged.
-- Judge tokens and cost are the judges', never the agent's.
--
-- Columns:
--   scoring_id         the scoring
--   metric             the judged metric
--   judge_model        the judge, as configured
--   judgements         judge answers the scoring used (cached and new)
--   cached             of those, answers reused from earlier scorings
--   calls              model calls made (new answers and failures)
--   failed             calls that failed after every retry
--   unjudged           judge calls not made because the judge budget was spent
--   input_tokens       prompt tokens of the new calls
--   output_tokens      output tokens of the new calls
--   cost_usd           the new calls' price; NULL when the judge is unpriced
--   budget_usd         the budget the scoring was given (--judge-budget-usd), if any
CREATE TABLE judge_usage (
    scoring_id    VARCHAR NOT NULL,
    metric        VARCHAR NOT NULL,
    judge_model   VARCHAR NOT NULL,
    judgements    INTEGER NOT NULL,
    cached        INTEGER NOT NULL,
    calls         INTEGER NOT NULL,
    failed        INTEGER NOT NULL,
    unjudged      INTEGER NOT NULL,
    input_tokens  BIGINT,
    output_tokens BIGINT,
    cost_usd      DOUBLE,
    budget_usd    DOUBLE
);
