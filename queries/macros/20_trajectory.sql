-- Trajectory matching, as ADK's TrajectoryEvaluator does it, and more. Arguments are in
-- canonical JSON (tg_canonical_json); a call's mode says how they must match: 'EXACT'
-- (equal), 'SUBSET' (every expected argument present in the actual call with an equal
-- value) or 'IGNORE'.
--
-- Two implementations of the same rules. With EXACT and IGNORE modes only, a call matches
-- when its key (tg_call_keys) is equal, and list operations on keys score a turn in
-- microseconds (tg_traj_score_keys). SUBSET is not an equality, so turns that use it go
-- through the general form below: {name, args, mode} structs matched pair by pair into a
-- matrix (tg_match_matrix), scored on it (tg_traj_score_matrix; tg_traj_score does both).
-- The property tests hold both forms to the same pure-Python reference.

-- tg_call_keys(names, args, modes): one key per call: the name, plus the arguments unless
-- the call's mode is IGNORE. Missing arguments (NULL) never equal `{}`, as in ADK.
CREATE OR REPLACE MACRO tg_call_keys(names, args, modes) AS (
    list_transform(range(1, len(names) + 1), lambda i:
        CASE WHEN modes[i] = 'IGNORE' THEN names[i]
             ELSE names[i] || chr(31) || coalesce(args[i], chr(0)) END)
);

-- tg_keys_matched(actual, expected): how many expected calls find a distinct actual call
-- with the same key (for equality, ADK's greedy ANY_ORDER walk finds exactly this many).
CREATE OR REPLACE MACRO tg_keys_matched(actual, expected) AS (
    coalesce(list_sum(list_transform(list_distinct(expected), lambda k:
        least(len(list_filter(expected, lambda x: x = k)), len(list_filter(actual, lambda x: x = k))))), 0)
);

-- tg_traj_score_keys(actual, expected, match_type): the per-turn score on key lists.
CREATE OR REPLACE MACRO tg_traj_score_keys(actual, expected, match_type) AS (
    CASE match_type
        WHEN 'EXACT' THEN (actual = expected)::DOUBLE
        WHEN 'IN_ORDER' THEN (list_reduce(actual, lambda consumed, k:
            consumed + CASE WHEN consumed < len(expected) AND k = expected[consumed + 1] THEN 1 ELSE 0 END,
            0) = len(expected))::DOUBLE
        WHEN 'ANY_ORDER' THEN (tg_keys_matched(actual, expected) = len(expected))::DOUBLE
        WHEN 'SUBSET' THEN list_has_all(expected, actual)::DOUBLE
        WHEN 'SUPERSET' THEN list_has_all(actual, expected)::DOUBLE
        WHEN 'PRECISION' THEN CASE WHEN len(actual) = 0 THEN (len(expected) = 0)::DOUBLE
            ELSE tg_keys_matched(actual, expected) / len(actual) END
        WHEN 'RECALL' THEN CASE WHEN len(expected) = 0 THEN 1.0
            ELSE tg_keys_matched(actual, expected) / len(expected) END
    END
);

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

-- tg_match_matrix(actual, expected): m[i][j] is whether actual call i matches expected call
-- j. The general form scores on this matrix, so each pair is matched once, and the macro
-- that matches a pair is expanded once in a query rather than in every match type.
CREATE OR REPLACE MACRO tg_match_matrix(actual, expected) AS (
    list_transform(actual, lambda a: list_transform(expected, lambda e: tg_call_match(a, e)))
);

-- tg_matrix_matched(m, n_actual, n_expected): how many expected calls find a match when each,
-- in order, takes the first still-unused matching actual call (ADK's ANY_ORDER walk).
CREATE OR REPLACE MACRO tg_matrix_matched(m, n_actual, n_expected) AS (
    list_reduce(range(1, n_expected + 1), lambda state, j: list_transform(
            [list_position(list_transform(state.unused, lambda i: m[i][j]), true)],
            lambda hit: CASE WHEN hit IS NULL THEN state ELSE {
                'unused': list_concat(state.unused[:hit - 1], state.unused[hit + 1:]),
                'matched': state.matched + 1
            } END)[1],
        {'unused': range(1, n_actual + 1), 'matched': 0}).matched
);

-- tg_traj_score_matrix(m, n_actual, n_expected, match_type): the per-turn score on the match
-- matrix. ADK's types (EXACT: same length, matching position by position; IN_ORDER: ADK's
-- greedy walk, advancing in the expected list on each match; ANY_ORDER: every expected call
-- matched) and SUBSET (every actual call matches an expected one) / SUPERSET (the converse)
-- give 1.0 or 0.0; PRECISION and RECALL give the matched share of the actual, resp. expected,
-- calls. `m` appears once per branch: a macro argument is expanded wherever it is used.
CREATE OR REPLACE MACRO tg_traj_score_matrix(m, n_actual, n_expected, match_type) AS (
    CASE match_type
        WHEN 'EXACT' THEN (n_actual = n_expected AND coalesce(list_bool_and(
            list_transform(range(1, n_actual + 1), lambda i: m[i][i])), true))::DOUBLE
        WHEN 'IN_ORDER' THEN (list_reduce(m, lambda consumed, row:
            consumed + CASE WHEN consumed < n_expected AND row[consumed + 1] THEN 1 ELSE 0 END,
            0) = n_expected)::DOUBLE
        WHEN 'SUBSET' THEN coalesce(list_bool_and(
            list_transform(m, lambda row: coalesce(list_bool_or(row), false))), true)::DOUBLE
        WHEN 'SUPERSET' THEN coalesce(list_bool_and(list_transform(range(1, n_expected + 1),
            lambda j: coalesce(list_bool_or(list_transform(m, lambda row: row[j])), false))), true)::DOUBLE
        ELSE tg_matched_share(tg_matrix_matched(m, n_actual, n_expected), n_actual, n_expected, match_type)
    END
);

-- tg_matched_share(matched, n_actual, n_expected, match_type): ANY_ORDER, PRECISION and
-- RECALL from the number of expected calls matched.
CREATE OR REPLACE MACRO tg_matched_share(matched, n_actual, n_expected, match_type) AS (
    CASE match_type
        WHEN 'ANY_ORDER' THEN (matched = n_expected)::DOUBLE
        WHEN 'PRECISION' THEN CASE WHEN n_actual = 0 THEN (n_expected = 0)::DOUBLE
            ELSE matched / n_actual END
        WHEN 'RECALL' THEN CASE WHEN n_expected = 0 THEN 1.0 ELSE matched / n_expected END
    END
);

-- tg_traj_score(actual, expected, match_type): the same on lists of {name, args, mode}
-- structs, for metrics of your own.
CREATE OR REPLACE MACRO tg_traj_score(actual, expected, match_type) AS (
    tg_traj_score_matrix(tg_match_matrix(actual, expected), len(actual), len(expected), match_type)
);

-- The trajectory criterion's options, read from the tg_options variable the scoring engine
-- sets for each metric. Constant within a query.
CREATE OR REPLACE MACRO tg_opt_match_type() AS
    coalesce(getvariable('tg_options')->>'match_type', 'EXACT');
CREATE OR REPLACE MACRO tg_opt_default_mode() AS
    coalesce(getvariable('tg_options')->>'args_match', 'EXACT');
CREATE OR REPLACE MACRO tg_opt_per_tool() AS json_transform(
    coalesce(getvariable('tg_options')->'args_match_per_tool', '{}'::JSON), '"MAP(VARCHAR, VARCHAR)"');
CREATE OR REPLACE MACRO tg_opt_one_mode() AS cardinality(tg_opt_per_tool()) = 0;
CREATE OR REPLACE MACRO tg_opt_uses_subset() AS
    tg_opt_default_mode() = 'SUBSET' OR list_contains(map_values(tg_opt_per_tool()), 'SUBSET');
CREATE OR REPLACE MACRO tg_opt_needs_args() AS
    tg_opt_default_mode() <> 'IGNORE' OR list_contains(map_values(tg_opt_per_tool()), 'EXACT')
    OR list_contains(map_values(tg_opt_per_tool()), 'SUBSET');
CREATE OR REPLACE MACRO tg_opt_unordered() AS
    coalesce((getvariable('tg_options')->>'unordered_parallel_calls')::BOOLEAN, false);

-- tg_opt_modes(names): each call's argument mode, by its tool.
CREATE OR REPLACE MACRO tg_opt_modes(names) AS
    list_transform(names, lambda n: coalesce(tg_opt_per_tool()[n], tg_opt_default_mode()));

-- tg_call_structs(names, args, order): calls as {name, args, mode} structs, in `order`.
CREATE OR REPLACE MACRO tg_call_structs(names, args, order_) AS
    list_transform(order_, lambda i: {
        'name': names[i], 'args': args[i],
        'mode': coalesce(tg_opt_per_tool()[names[i]], tg_opt_default_mode())});

-- tg_regroup(names, groups, expected_names): an order for the actual calls in which calls
-- of one parallel group line up behind the first expected call of the same tool; groups
-- keep their places.
CREATE OR REPLACE MACRO tg_regroup(names, groups, expected_names) AS
    list_transform(list_sort(list_transform(range(1, len(names) + 1), lambda i: {
        'group_start': list_position(groups, groups[i]),
        'hint': coalesce(list_position(expected_names, names[i]), 1000000),
        'i': i})), lambda s: s.i);
