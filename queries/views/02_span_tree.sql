-- tg_span_walk(nodes, roots, fanouts): the walk down from the spans of `roots`, for
-- tg_span_tree. A child that is the walk's own root is not followed: from a cycle's
-- broken link, the walk would come round to it again.
CREATE OR REPLACE MACRO tg_span_walk(nodes, roots, fanouts) AS TABLE
WITH RECURSIVE walk AS (
    SELECT
        trace_id,
        span_id,
        op,
        span_id AS trace_root_span_id,
        CASE WHEN op IN ('eval_turn', 'workflow', 'agent') THEN span_id END AS turn_span_id,
        0 AS tool_depth,
        CASE WHEN op = 'agent' THEN agent_name END AS agent_path,
        NULL::VARCHAR AS fanout_span_id,
        NULL::VARCHAR AS model_span_id,
        0 AS depth
    FROM query_table(roots)
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
        -- A model span's work is its own: a tool or agent span under it starts afresh.
        CASE
            WHEN w.op = 'llm' THEN w.span_id
            WHEN w.op IN ('tool', 'agent', 'workflow') THEN NULL
            ELSE w.model_span_id
        END,
        w.depth + 1
    FROM walk w
    JOIN query_table(nodes) c
      ON c.trace_id = w.trace_id AND c.parent_span_id = w.span_id
     AND c.span_id <> w.trace_root_span_id
    LEFT JOIN query_table(fanouts) f ON f.trace_id = w.trace_id AND f.span_id = w.span_id
)
SELECT * FROM walk;

-- tg_span_climb(unreached): for tg_span_tree, each span of `unreached` (trace_id, span_id,
-- parent_span_id, n = such spans in its trace) with the ancestors its climb passes.
CREATE OR REPLACE MACRO tg_span_climb(unreached) AS TABLE
WITH RECURSIVE climb AS (
    SELECT trace_id, span_id AS start_id, parent_span_id AS at_id, 1 AS steps, n
    FROM query_table(unreached)
    UNION ALL
    SELECT c.trace_id, c.start_id, u.parent_span_id, c.steps + 1, c.n
    FROM climb c
    JOIN query_table(unreached) u ON u.trace_id = c.trace_id AND u.span_id = c.at_id
    WHERE c.at_id <> c.start_id AND c.steps < c.n
)
SELECT trace_id, start_id, at_id FROM climb;

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
--   model_span_id    the nearest enclosing model-call span (op llm), NULL for none: a model
--                    span inside another is the same call seen by a second instrumentation
--                    (ADK's generate_content around LiteLLM's or the OpenAI client's span)
--   depth            distance from the trace's root span (or from cycle_broken_at)
--   cycle_broken_at  NULL for a span a root leads to. Where following parents never
--                    reaches a root (they form a cycle: A's parent is B, B's parent is A),
--                    the cycle is broken at its smallest span id, placed as a root; that id
--                    is then here, on it and on every span placed under it
--
-- tg_span_tree(normalised, source): the same, over the relations named `normalised` (rows
-- of agent_spans) and `source` (their spans), as scoring builds it for the selected traces.
CREATE OR REPLACE MACRO tg_span_tree(normalised, source) AS TABLE
WITH nodes AS MATERIALIZED (
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
walked AS MATERIALIZED (
    -- Read twice: for what it reached, and for what it did not (the anti-join below and
    -- this materialisation: span_tree 0.28 -> 0.38 s at 180k ADK spans, turns no slower).
    SELECT * FROM tg_span_walk('nodes', 'roots', 'fanouts')
),
unreached AS MATERIALIZED (
    -- Spans no root leads to: their parents form a cycle, or hang from one. Bad data, so
    -- normally none, and what follows costs nothing.
    SELECT n.trace_id, n.span_id, n.parent_span_id, count(*) OVER (PARTITION BY n.trace_id) AS n
    FROM nodes n
    ANTI JOIN walked w ON w.trace_id = n.trace_id AND w.span_id = n.span_id
),
climb AS (
    -- Up the parents from each unreached span, at most as many steps as there are such
    -- spans in its trace, stopping where it comes back to where it started.
    SELECT * FROM tg_span_climb('unreached')
),
cycle_roots AS (
    -- The spans on a cycle (the climb came back), each cycle broken at its smallest id.
    SELECT s.*
    FROM nodes s
    JOIN (
        SELECT trace_id, start_id, min(at_id) AS smallest
        FROM climb
        GROUP BY trace_id, start_id
        HAVING bool_or(at_id = start_id)
    ) c ON c.trace_id = s.trace_id AND c.start_id = s.span_id AND c.smallest = s.span_id
),
placed AS (
    SELECT *, NULL::VARCHAR AS cycle_broken_at FROM walked
    UNION ALL
    SELECT *, trace_root_span_id AS cycle_broken_at
    FROM tg_span_walk('nodes', 'cycle_roots', 'fanouts')
)
SELECT
    trace_id,
    span_id,
    coalesce(turn_span_id, trace_root_span_id) AS turn_span_id,
    trace_id || '-' || coalesce(turn_span_id, trace_root_span_id) AS turn_id,
    tool_depth,
    agent_path,
    fanout_span_id,
    model_span_id,
    depth,
    cycle_broken_at
FROM placed;

CREATE OR REPLACE VIEW span_tree AS SELECT * FROM tg_span_tree('agent_spans', 'spans');
