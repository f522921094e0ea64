-- metric: response_evaluation_score
-- better: higher
-- needs: expected
-- judge: adk
-- One row per judged turn: Vertex AI's coherence of the response, 1 to 5 (ADK's response_evaluation_score), computed by
-- ADK's evaluator through its Vertex AI facade. Needs google-adk[eval] and Vertex AI
-- credentials (GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION); without
-- them the turn is not evaluated, with that reason.
-- detail: {rationale, verdicts, reason, judge_error}
SELECT turn_id, score, detail FROM tg_one_answer('response_evaluation_score')
