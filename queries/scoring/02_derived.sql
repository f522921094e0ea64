-- Derived inputs, rebuilt from the input tables however they were filled: each turn's calls
-- as parallel lists in call order, built once for every metric that compares trajectories.

-- scored_trajectories: one row per scored turn with tool calls: its calls as lists in call
-- order.
--
-- Columns:
--   turn_id                the turn
--   names                  the tools called
--   args                   their arguments in canonical JSON
--   shown_args             the arguments as sent, for reports (the canonical ones turn true
--                          into 1); canonical where none are kept; NULL where the call had none
--   groups                 each call's parallel_group
--   keys                   name and arguments together: equal keys are equal calls
--   args_captured          every call's arguments were recorded
CREATE OR REPLACE TEMP TABLE scored_trajectories AS
WITH ordered AS (
    -- A turn's calls as one list of structs led by seq, sorted within the list, then split:
    -- six lists each ordered by seq sorted every call six times (0.53 s at 100k turns), one
    -- list ordered by seq sorts the structs whole across turns (0.26 s), this 0.15 s.
    SELECT
        turn_id,
        list_sort(list({
            'seq': seq,
            'name': name,
            'args': args,
            'shown': CASE WHEN args IS NOT NULL THEN coalesce(raw_args::VARCHAR, args) END,
            'grp': parallel_group
        })) AS calls,
        bool_and(args_captured) AS args_captured
    FROM scored_calls
    GROUP BY turn_id
)
SELECT
    turn_id,
    [c.name FOR c IN calls] AS names,
    [c.args FOR c IN calls] AS args,
    [c.shown FOR c IN calls] AS shown_args,
    [c.grp FOR c IN calls] AS groups,
    -- Name and arguments together: equal keys are equal calls (tg_call_keys, mode EXACT).
    [c.name || chr(31) || coalesce(c.args, chr(0)) FOR c IN calls] AS keys,
    args_captured
FROM ordered;

-- scored_trajectory_pairs: one row per turn with an expectation: its actual calls beside
-- the expected ones (empty lists where there are none).
--
-- Columns:
--   turn_id                the turn
--   actual_names           the tools called, in order
--   actual_args            their arguments in canonical JSON
--   actual_shown_args      their arguments as sent
--   actual_groups          each call's parallel_group
--   actual_keys            name and arguments together, per call
--   actual_captured        every call's arguments were recorded (true without calls)
--   expected_names         the tools expected, in order
--   expected_args          their arguments in canonical JSON
--   expected_shown_args    their arguments as the eval set wrote them
--   expected_keys          name and arguments together, per expected call
CREATE OR REPLACE TEMP TABLE scored_trajectory_pairs AS
WITH ordered AS (
    SELECT
        e.turn_id,
        coalesce(list_sort(list({
            'seq': c.seq, 'name': c.name, 'args': c.args, 'shown': coalesce(c.raw_args, c.args)
        }) FILTER (c.name IS NOT NULL)), []) AS calls
    FROM scored_expected e
    LEFT JOIN scored_expected_calls c USING (turn_id)
    GROUP BY e.turn_id
),
expected AS (
    SELECT
        turn_id,
        [c.name FOR c IN calls] AS names,
        [c.args FOR c IN calls] AS args,
        [c.shown FOR c IN calls] AS shown_args,
        [c.name || chr(31) || coalesce(c.args, chr(0)) FOR c IN calls] AS keys
    FROM ordered
)
SELECT
    e.turn_id,
    coalesce(a.names, []::VARCHAR[]) AS actual_names,
    coalesce(a.args, []::VARCHAR[]) AS actual_args,
    coalesce(a.shown_args, []::VARCHAR[]) AS actual_shown_args,
    coalesce(a.groups, []::VARCHAR[]) AS actual_groups,
    coalesce(a.keys, []::VARCHAR[]) AS actual_keys,
    coalesce(a.args_captured, true) AS actual_captured,
    e.names AS expected_names,
    e.args AS expected_args,
    e.shown_args AS expected_shown_args,
    e.keys AS expected_keys
FROM expected e
LEFT JOIN scored_trajectories a USING (turn_id);
