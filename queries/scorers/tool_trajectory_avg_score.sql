-- metric: tool_trajectory_avg_score
-- better: higher
-- needs: expected
-- range: 0..1
-- One row per turn with an expectation: 1.0 when the turn's tool calls match the expected
-- ones under the criterion's match_type, else 0.0 (PRECISION and RECALL give the matched
-- share); the case score is the mean over its turns, as in ADK. Options (tg_options):
--   match_type   EXACT (default) | IN_ORDER | ANY_ORDER | SUBSET | SUPERSET | PRECISION | RECALL
--   args_match   EXACT (default) | SUBSET | IGNORE, and args_match_per_tool {tool: mode}
--   unordered_parallel_calls  calls sharing a parallel_group may match in any order: within
--                a group they line up behind the first expected call of the same tool
-- score is NULL (not evaluated) when arguments are needed but were not captured.
-- detail: {match_type, expected: [{name, args}], actual: [{name, args}], reason} when the
-- turn did not match, {match_type} when it did.
WITH keyed AS (
    -- Each call's key under its mode; with one mode for every tool they are ready-made.
    SELECT
        p.*,
        CASE
            WHEN tg_opt_one_mode() AND tg_opt_default_mode() = 'IGNORE' THEN p.actual_names
            WHEN tg_opt_one_mode() THEN p.actual_keys
            ELSE tg_call_keys(p.actual_names, p.actual_args, tg_opt_modes(p.actual_names))
        END AS a_keys,
        CASE
            WHEN tg_opt_one_mode() AND tg_opt_default_mode() = 'IGNORE' THEN p.expected_names
            WHEN tg_opt_one_mode() THEN p.expected_keys
            ELSE tg_call_keys(p.expected_names, p.expected_args, tg_opt_modes(p.expected_names))
        END AS e_keys,
        -- The order calls are compared in: as made (NULL), or regrouped.
        CASE WHEN tg_opt_unordered() THEN tg_regroup(p.actual_names, p.actual_groups, p.expected_names) END AS perm
    FROM scored_trajectory_pairs p
),
matrices AS (
    -- SUBSET arguments are no equality of keys: those turns match call by call.
    SELECT
        *,
        CASE WHEN tg_opt_uses_subset() THEN tg_match_matrix(
            tg_call_structs(actual_names, actual_args, coalesce(perm, range(1, len(actual_names) + 1))),
            tg_call_structs(expected_names, expected_args, range(1, len(expected_names) + 1))
        ) END AS matches
    FROM keyed
),
scored AS (
    SELECT
        turn_id, actual_names, actual_shown_args, expected_names, expected_shown_args, perm,
        NOT actual_captured AND tg_opt_needs_args() AND len(expected_names) > 0 AS args_missing,
        CASE
            WHEN tg_opt_uses_subset() THEN tg_traj_score_matrix(
                matches, len(actual_names), len(expected_names), tg_opt_match_type())
            WHEN perm IS NULL THEN tg_traj_score_keys(a_keys, e_keys, tg_opt_match_type())
            ELSE tg_traj_score_keys(list_transform(perm, lambda i: a_keys[i]), e_keys, tg_opt_match_type())
        END AS raw_score
    FROM matrices
)
SELECT
    turn_id,
    CASE WHEN NOT args_missing THEN raw_score END AS score,
    CASE WHEN args_missing OR raw_score < 1 THEN json_object(
        'match_type', tg_opt_match_type(),
        'expected', list_transform(range(1, len(expected_names) + 1), lambda j:
            {'name': expected_names[j], 'args': expected_shown_args[j]::JSON}),
        'actual', list_transform(coalesce(perm, range(1, len(actual_names) + 1)), lambda i:
            {'name': actual_names[i], 'args': actual_shown_args[i]::JSON}),
        'reason', CASE WHEN args_missing
            THEN 'tool arguments were not captured (turn on content capture) so they cannot be compared'
        END
    ) ELSE json_object('match_type', tg_opt_match_type()) END AS detail
FROM scored
