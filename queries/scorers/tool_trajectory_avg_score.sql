-- metric: tool_trajectory_avg_score
-- better: higher
-- needs: expected
-- One row per turn with an expectation: 1.0 when the turn's tool calls match the expected
-- ones under the criterion's match_type, else 0.0 (PRECISION and RECALL give the matched
-- share); the case score is the mean over its turns, as in ADK. Options (tg_options):
--   match_type   EXACT (default) | IN_ORDER | ANY_ORDER | SUBSET | SUPERSET | PRECISION | RECALL
--   args_match   EXACT (default) | SUBSET | IGNORE, and args_match_per_tool {tool: mode}
--   unordered_parallel_calls  calls sharing a parallel_group may match in any order
-- score is NULL (not evaluated) when arguments are needed but were not captured.
-- detail: {match_type, expected: [{name, args}], actual: [{name, args}], reason?}
WITH options AS (
    SELECT
        coalesce(getvariable('tg_options')->>'match_type', 'EXACT') AS match_type,
        coalesce(getvariable('tg_options')->>'args_match', 'EXACT') AS args_match,
        coalesce(getvariable('tg_options')->'args_match_per_tool', '{}'::JSON) AS per_tool,
        coalesce((getvariable('tg_options')->>'unordered_parallel_calls')::BOOLEAN, false) AS unordered
),
expected AS (
    SELECT e.turn_id, e.seq, e.name, e.args,
           coalesce(o.per_tool->>e.name, o.args_match) AS mode
    FROM scored_expected_calls e, options o
),
actual AS (
    SELECT c.turn_id, c.seq, c.name, c.args, c.args_captured,
           min(c.seq) OVER (PARTITION BY c.turn_id, c.parallel_group) AS group_start
    FROM scored_calls c
),
hints AS (
    -- With unordered_parallel_calls, calls within a group line up behind the first
    -- expected call they match.
    SELECT a.turn_id, a.seq, min(x.seq) AS hint
    FROM actual a
    JOIN expected x ON x.turn_id = a.turn_id AND x.name = a.name
    CROSS JOIN options o
    WHERE o.unordered AND tg_call_match({'name': a.name, 'args': a.args}, x)
    GROUP BY ALL
),
actual_lists AS (
    SELECT
        a.turn_id,
        list({'name': a.name, 'args': a.args, 'mode': NULL::VARCHAR}
             ORDER BY CASE WHEN o.unordered THEN a.group_start END, h.hint NULLS LAST, a.seq) AS calls,
        bool_and(a.args_captured) AS captured
    FROM actual a
    LEFT JOIN hints h USING (turn_id, seq)
    CROSS JOIN options o
    GROUP BY a.turn_id
),
expected_lists AS (
    SELECT turn_id, list({'name': name, 'args': args, 'mode': mode} ORDER BY seq) AS calls,
           bool_or(mode <> 'IGNORE') AS needs_args
    FROM expected
    GROUP BY turn_id
),
paired AS (
    SELECT
        t.turn_id,
        coalesce(a.calls, []::STRUCT(name VARCHAR, args VARCHAR, mode VARCHAR)[]) AS actual,
        coalesce(e.calls, []::STRUCT(name VARCHAR, args VARCHAR, mode VARCHAR)[]) AS expected,
        NOT coalesce(a.captured, true) AND coalesce(e.needs_args, false) AS args_missing
    FROM scored_expected t
    LEFT JOIN actual_lists a USING (turn_id)
    LEFT JOIN expected_lists e USING (turn_id)
)
SELECT
    p.turn_id,
    CASE WHEN NOT p.args_missing THEN tg_traj_score(p.actual, p.expected, o.match_type) END AS score,
    json_object(
        'match_type', o.match_type,
        'expected', list_transform(p.expected, lambda c: {'name': c.name, 'args': c.args::JSON}),
        'actual', list_transform(p.actual, lambda c: {'name': c.name, 'args': c.args::JSON}),
        'reason', CASE WHEN p.args_missing
            THEN 'tool arguments were not captured (turn on content capture) so they cannot be compared'
        END
    ) AS detail
FROM paired p, options o
