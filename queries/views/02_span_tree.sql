-- span_tree: every span placed in its user turn. One row per span.
-- A turn is rooted at tracegrade's eval-turn span when there is one, else at the outermost
-- workflow or agent span (an application may wrap several turns in one trace of its own);
-- model and tool spans outside any agent span belong to their trace's root.
--
-- Columns:
--   trace_id         the span's trace
--   span_id          the span
--   turn_span_id     the span its turn is rooted at
--   turn_id          the turn: trace_id || '-' || turn_span_id
--   tool_depth       how many tool spans enclose it inside its turn: > 0 means the work of
--                    an AgentTool (a separate ADK session), which ADK eval does not count
--   agent_path       enclosing agent names joined with '.', e.g. fanout.news_branch
--   fanout_span_id   the nearest enclosing agent span whose sub-agents ran at the same
--                    time (a ParallelAgent): work under it has no fixed order
--   depth            distance from the trace's root span
--
-- tg_span_tree(normalised, source): the same, over the relations named `normalised` (rows
-- of agent_spans) and `source` (their spans), as scoring builds it for the selected traces.
CREATE OR REPLACE MACRO tg_span_tree(normalised, source) AS TABLE
WITH RECURSIVE nodes AS MATERIALIZED (
    -- Computed once: the walk below joins it at every level, and would otherwise
    -- normalise every span again at each (measured: most of the turns view's time).
    SELECT trace_id, span_id, parent_span_id, op, agent_name, start_ns, end_ns
    FROM query_table(normalised)
),
fanouts AS (
    -- Agents whose sub-agents overlap in time: nothing else marks a ParallelAgent on spans.
    SELECT DISTINCT a.trace_id, a.parent_span_id AS span_id
    FROM nodes a
    JOIN nodes b
      ON b.trace_id = a.trace_id AND b.parent_span_id = a.parent_span_id AND b.span_id > a.span_id
     AND a.start_ns < b.end_ns AND b.start_ns < a.end_ns
    WHERE a.op = 'agent' AND b.op = 'agent'
),
roots AS (
    SELECT s.*
    FROM nodes s
    WHERE s.parent_span_id IS NULL
       OR NOT EXISTS (
            SELECT 1 FROM query_table(source) p WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id
       )
),
walk AS (
    SELECT
        trace_id,
        span_id,
        op,
        span_id AS trace_root_span_id,
        CASE WHEN op IN ('eval_turn', 'workflow', 'agent') THEN span_id END AS turn_span_id,
        0 AS tool_depth,
        CASE WHEN op = 'agent' THEN agent_name END AS agent_path,
        NULL::VARCHAR AS fanout_span_id,
        0 AS depth
    FROM roots
    UNION ALL
    SELECT
        c.trace_id,
        c.span_id,
        c.op,
        w.trace_root_span_id,
        CASE
            WHEN w.turn_span_id IS NULL AND c.op IN ('eval_turn', 'workflow', 'agent') THEN c.span_id
            ELSE w.turn_span_id
        END,
        w.tool_depth + CASE WHEN w.op = 'tool' AND w.turn_span_id IS NOT NULL THEN 1 ELSE 0 END,
        CASE
            WHEN c.op = 'agent' AND w.agent_path IS NOT NULL THEN w.agent_path || '.' || c.agent_name
            WHEN c.op = 'agent' THEN c.agent_name
            ELSE w.agent_path
        END,
        CASE WHEN f.span_id IS NOT NULL THEN w.span_id ELSE w.fanout_span_id END,
        w.depth + 1
    FROM walk w
    JOIN nodes c ON c.trace_id = w.trace_id AND c.parent_span_id = w.span_id
    LEFT JOIN fanouts f ON f.trace_id = w.trace_id AND f.span_id = w.span_id
)
SELECT
    trace_id,
    span_id,
    coalesce(turn_span_id, trace_root_span_id) AS turn_span_id,
    trace_id || '-' || coalesce(turn_span_id, trace_root_span_id) AS turn_id,
    tool_depth,
    agent_path,
    fanout_span_id,
    depth
FROM walk;

CREATE OR REPLACE VIEW span_tree AS SELECT * FROM tg_span_tree('agent_spans', 'spans');
