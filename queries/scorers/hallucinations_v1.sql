-- metric: hallucinations_v1
-- better: higher
-- range: 0..1
-- needs: nothing
-- judge: adk
-- One row per judged turn: ADK's hallucinations_v1. A judge splits the final response
-- (and, with evaluate_intermediate_nl_responses, each text the agent said on the way) into
-- sentences, then labels each against the context the agent had (instructions, the user's
-- message, tool definitions, calls and results): supported or not_applicable count 1,
-- unsupported, contradictory or disputed 0. A response scores the share of 1s; the turn,
-- the mean over its responses. A response whose judging failed does not count; a turn left
-- with none is not evaluated.
-- detail: {sentences: [{sentence, label, rationale}], rationale, reason, judge_error}
WITH checked AS (
    SELECT
        turn_id,
        avg(score) AS score,
        flatten(list(from_json(verdicts,
            '[{"sentence": "VARCHAR", "label": "VARCHAR", "rationale": "VARCHAR"}]')
            ORDER BY sample)) AS sentences
    FROM scored_judgements
    WHERE metric = 'hallucinations_v1' AND step = 'validate' AND outcome = 'answered'
    GROUP BY turn_id
)
SELECT
    j.turn_id,
    CASE WHEN NOT j.unjudged THEN c.score END AS score,
    tg_judge_detail(CASE WHEN NOT j.unjudged THEN c.score END, j.problem, j.failed, j.unjudged,
        json_object(
            'sentences', coalesce(c.sentences, []),
            'rationale', list_filter(c.sentences, lambda s: lower(trim(s.label)) NOT IN
                ('supported', 'not_applicable'))[1].rationale)) AS detail
FROM tg_judged('hallucinations_v1') j
LEFT JOIN checked c USING (turn_id)
