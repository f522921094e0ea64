-- turn_facts: one row per user turn of a trace whose facts the writer keeps: the row
-- scoring selects for the turn (queries/scoring/00_selected.sql, `scoring_turns`), computed
-- once when the trace is complete instead of at every scoring (store/turn_facts.py). A
-- trace's facts are used only while `turn_fact_traces` says they are fresh; otherwise
-- scoring rebuilds the trace's turns from its spans, into the same rows.
--
-- Columns:
--   turn_id            the turn: its trace and root span (as in `turns`)
--   trace_id           the turn's trace
--   root_span_id       the span the turn is rooted at
--   root_name          that span's name
--   run_id             eval runs: the run (NULL for traffic)
--   eval_set_id        eval runs: the eval set
--   case_id            eval runs: the case
--   repeat             eval runs: the repeat, from 0
--   turn_index         eval runs: the turn's position in the case, from 0
--   session_id         ADK session (conversation) id
--   invocation_id      ADK invocation id
--   user_id            user id, where recorded
--   root_agent         the outermost agent (or workflow) name
--   convention         how the turn was recorded (see agent_spans)
--   start_ns           start, epoch ns
--   end_ns             end, epoch ns
--   started_at         start as a timestamp
--   latency_ms         the turn's wall-clock time in milliseconds
--   llm_calls          model calls
--   llm_errors         model calls that raised
--   tool_calls         tool calls
--   tool_errors        tool calls that failed
--   input_tokens       prompt tokens
--   output_tokens      output tokens, thoughts included
--   reasoning_tokens   thought tokens
--   cached_tokens      cached prompt tokens
--   total_tokens       input + output
--   models             the models the turn called
--   user_text          the user's message, when captured
--   final_text         the final response text, when captured
--   args_captured      all tool arguments were recorded (NULL without tool calls)
--   is_error           the turn crashed (agent, model or tool raised)
--   error_type         the error's type
--   error_message      the error's message
--   service_name       the root span's resource service.name
--   service_version    the root span's resource service.version
CREATE TABLE turn_facts (
    turn_id          VARCHAR NOT NULL,
    trace_id         VARCHAR NOT NULL,
    root_span_id     VARCHAR,
    root_name        VARCHAR,
    run_id           VARCHAR,
    eval_set_id      VARCHAR,
    case_id          VARCHAR,
    repeat           INTEGER,
    turn_index       INTEGER,
    session_id       VARCHAR,
    invocation_id    VARCHAR,
    user_id          VARCHAR,
    root_agent       VARCHAR,
    convention       VARCHAR,
    start_ns         BIGINT,
    end_ns           BIGINT,
    started_at       TIMESTAMP,
    latency_ms       DOUBLE,
    llm_calls        BIGINT,
    llm_errors       BIGINT,
    tool_calls       BIGINT,
    tool_errors      BIGINT,
    input_tokens     HUGEINT,
    output_tokens    HUGEINT,
    reasoning_tokens HUGEINT,
    cached_tokens    HUGEINT,
    total_tokens     HUGEINT,
    models           VARCHAR[],
    user_text        VARCHAR,
    final_text       VARCHAR,
    args_captured    BOOLEAN,
    is_error         BOOLEAN,
    error_type       VARCHAR,
    error_message    VARCHAR,
    service_name     VARCHAR,
    service_version  VARCHAR
);

-- turn_fact_calls: each kept turn's own tool calls in order, as scoring's `scored_calls`
-- holds them (queries/scoring/00_selected.sql, `scoring_turn_calls`): AgentTool internals
-- excluded, arguments in canonical form.
--
-- Columns:
--   turn_id         the turn (turn_facts)
--   seq             the call's position in the turn, from 1
--   name            the tool called
--   args            the arguments in canonical form (tg_canonical_json); NULL when not
--                   captured, or when the model sent none (tool_calls.args_omitted)
--   args_captured   the arguments were recorded
--   is_error        the call failed
--   error_kind      returned_error, unknown_tool, raised or error (see tool_calls)
--   error_message   the error's message
--   parallel_group  calls in one group have no fixed order (see tool_calls)
--   agent_name      the agent that called it
--   start_ns        start, epoch ns
--   end_ns          end, epoch ns
--   raw_args        the arguments as sent
--   result          the result as JSON text, when captured
--   tool_type       ADK's tool class
--   tool_offered    the model was given this tool (NULL when unknown)
--   tool_schema     the tool's parameter schema the model was given
CREATE TABLE turn_fact_calls (
    turn_id        VARCHAR NOT NULL,
    seq            BIGINT,
    name           VARCHAR,
    args           VARCHAR,
    args_captured  BOOLEAN,
    is_error       BOOLEAN,
    error_kind     VARCHAR,
    error_message  VARCHAR,
    parallel_group VARCHAR,
    agent_name     VARCHAR,
    start_ns       BIGINT,
    end_ns         BIGINT,
    raw_args       VARCHAR,
    result         VARCHAR,
    tool_type      VARCHAR,
    tool_offered   BOOLEAN,
    tool_schema    VARCHAR
);

-- turn_fact_llm_calls: each kept turn's model calls, as scoring's `scored_llm_calls` holds
-- them (`scoring_turn_llm_calls`): AgentTool internals included, flagged.
--
-- Columns:
--   turn_id           the turn (turn_facts)
--   seq               the call's position in the turn
--   in_agent_tool     made inside an AgentTool
--   model             the model asked
--   agent_name        the agent that asked
--   input_tokens      prompt tokens
--   output_tokens     output tokens, thoughts included
--   reasoning_tokens  thought tokens
--   cached_tokens     cached prompt tokens
--   is_error          the call raised
--   start_ns          start, epoch ns
--   end_ns            end, epoch ns
CREATE TABLE turn_fact_llm_calls (
    turn_id          VARCHAR NOT NULL,
    seq              BIGINT,
    in_agent_tool    BOOLEAN,
    model            VARCHAR,
    agent_name       VARCHAR,
    input_tokens     BIGINT,
    output_tokens    BIGINT,
    reasoning_tokens BIGINT,
    cached_tokens    BIGINT,
    is_error         BOOLEAN,
    start_ns         BIGINT,
    end_ns           BIGINT
);

-- turn_fact_traces: one row per trace whose turn facts are stored (none, for a trace with
-- no turn, such as an eval run's own). The facts are fresh while the trace still holds
-- `spans` spans, the run it belongs to `run_spans` eval-run spans (they carry the tool
-- definitions its calls are checked against) and `version` is the running tracegrade's
-- (a digest of the SQL the facts are made by): a late span, a run span stored after its
-- turns, an archived or pruned span or a new tracegrade makes them stale, and scoring
-- then rebuilds that trace from its spans until the writer recomputes it.
--
-- Columns:
--   trace_id     the trace
--   spans        spans the trace held when its facts were computed
--   run_id       the eval run its turns belong to (NULL for traffic)
--   run_spans    that run's tracegrade.eval_run spans then
--   version      digest of the SQL that computed them
--   computed_at  when
CREATE TABLE turn_fact_traces (
    trace_id    VARCHAR PRIMARY KEY,
    spans       BIGINT NOT NULL,
    run_id      VARCHAR,
    run_spans   BIGINT NOT NULL,
    version     VARCHAR NOT NULL,
    computed_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
