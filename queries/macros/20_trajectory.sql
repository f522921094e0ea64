-- Trajectory matching, as ADK's TrajectoryEvaluator does it, and more. A call is a struct
-- {name VARCHAR, args VARCHAR, mode VARCHAR}: args in canonical JSON (tg_canonical_json),
-- mode how that expected call's arguments must match: 'EXACT' (equal), 'SUBSET' (every
-- expected argument present in the actual call with an equal value) or 'IGNORE'.

-- tg_args_subset(expected, actual): every top-level key of `expected` is in `actual` with
-- an equal (canonical) value.
CREATE OR REPLACE MACRO tg_args_subset(expected, actual) AS (
    json_type(expected) = 'OBJECT' AND json_type(actual) = 'OBJECT' AND coalesce(list_bool_and(
        list_transform(json_keys(expected), lambda k:
            json_extract(actual, '$.' || to_json(k)::VARCHAR)::VARCHAR
                IS NOT DISTINCT FROM json_extract(expected, '$.' || to_json(k)::VARCHAR)::VARCHAR)
    ), true)
);

-- tg_call_match(actual_call, expected_call): same tool, arguments matching by the expected
-- call's mode. Missing arguments (NULL) never equal `{}`, as in ADK.
CREATE OR REPLACE MACRO tg_call_match(a, e) AS (
    a.name = e.name AND CASE e.mode
        WHEN 'IGNORE' THEN true
        WHEN 'SUBSET' THEN coalesce(tg_args_subset(e.args, a.args), false)
        ELSE a.args IS NOT DISTINCT FROM e.args
    END
);

-- EXACT: same length, and the calls match position by position.
CREATE OR REPLACE MACRO tg_traj_exact(actual, expected) AS (
    len(actual) = len(expected) AND coalesce(list_bool_and(list_transform(
        range(1, len(expected) + 1), lambda i: tg_call_match(actual[i], expected[i])
    )), true)
);

-- IN_ORDER: the expected calls appear in the actual list in order, extras allowed (ADK's
-- greedy walk: advance in the expected list on each match).
CREATE OR REPLACE MACRO tg_traj_in_order(actual, expected) AS (
    list_reduce(actual, lambda consumed, call:
        consumed + CASE WHEN consumed < len(expected) AND tg_call_match(call, expected[consumed + 1])
                        THEN 1 ELSE 0 END,
        0) = len(expected)
);

-- tg_traj_matched(actual, expected): how many expected calls find a match when each takes
-- the first still-unused matching actual call (ADK's ANY_ORDER walk).
CREATE OR REPLACE MACRO tg_traj_matched(actual, expected) AS (
    list_reduce(expected, lambda state, want: list_transform(
            [list_position(list_transform(state.unused, lambda call: tg_call_match(call, want)), true)],
            lambda hit: CASE WHEN hit IS NULL THEN state ELSE {
                'unused': list_concat(state.unused[:hit - 1], state.unused[hit + 1:]),
                'matched': state.matched + 1
            } END)[1],
        {'unused': actual, 'matched': 0}).matched
);

-- tg_traj_covers(calls, by): every call in `calls` matches some call in `by` (set semantics).
CREATE OR REPLACE MACRO tg_traj_covers(calls, by_calls, actual_side) AS (
    coalesce(list_bool_and(list_transform(calls, lambda c: coalesce(list_bool_or(
        list_transform(by_calls, lambda o: CASE WHEN actual_side THEN tg_call_match(c, o) ELSE tg_call_match(o, c) END)
    ), false))), true)
);

-- tg_traj_score(actual, expected, match_type): the per-turn score. ADK's types (EXACT,
-- IN_ORDER, ANY_ORDER) and SUBSET / SUPERSET (set inclusion) give 1.0 or 0.0; PRECISION and
-- RECALL give the matched share of the actual, resp. expected, calls.
CREATE OR REPLACE MACRO tg_traj_score(actual, expected, match_type) AS (
    CASE match_type
        WHEN 'EXACT' THEN tg_traj_exact(actual, expected)::DOUBLE
        WHEN 'IN_ORDER' THEN tg_traj_in_order(actual, expected)::DOUBLE
        WHEN 'ANY_ORDER' THEN (tg_traj_matched(actual, expected) = len(expected))::DOUBLE
        WHEN 'SUBSET' THEN tg_traj_covers(actual, expected, true)::DOUBLE
        WHEN 'SUPERSET' THEN tg_traj_covers(expected, actual, false)::DOUBLE
        WHEN 'PRECISION' THEN CASE WHEN len(actual) = 0 THEN (len(expected) = 0)::DOUBLE
            ELSE tg_traj_matched(actual, expected) / len(actual) END
        WHEN 'RECALL' THEN CASE WHEN len(expected) = 0 THEN 1.0
            ELSE tg_traj_matched(actual, expected) / len(expected) END
    END
);
