-- metric: multi_turn_trajectory_quality_v1
-- better: higher
-- needs: nothing
-- judge: adk
-- One row per judged turn: Vertex AI's multi-turn trajectory quality, rated on the conversation at its last turn, computed by
-- ADK's evaluator through its Vertex AI facade. Needs google-adk[eval] and Vertex AI
-- credentials (GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION); without
-- them the turn is not evaluated, with that reason.
-- detail: {rationale, verdicts, reason, judge_error}
SELECT turn_id, score, detail FROM tg_one_answer('multi_turn_trajectory_quality_v1')
