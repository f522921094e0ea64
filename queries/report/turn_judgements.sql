-- turn_judgements: what the judges said about a turn: per judged metric and step, the latest
-- answer with a rationale (a scoring may reuse an earlier scoring's cached answer). One row
-- per metric, step and sample.
-- Parameters: turn_id.
--
-- Columns:
--   metric, step, sample, judge_model, rationale, outcome, error   as in judgements
SELECT metric, step, sample, judge_model, rationale, outcome, error
FROM judgements
WHERE turn_id = ? AND (rationale IS NOT NULL OR outcome <> 'answered')
QUALIFY row_number() OVER (PARTITION BY metric, step, sample ORDER BY judged_at DESC) = 1
ORDER BY metric, step, sample
