-- metric: task_completion
-- better: higher
-- range: 0..1
-- needs: nothing
-- judge: task_completion.prompt
-- rates: conversation
-- One row per turn of a judged conversation: did the agent complete each task, within its
-- constraints? An LLM judge (judge_model_options) reads the whole conversation, tool calls
-- and results included, at its last turn and answers yes or no per task: the criterion's
-- `tasks`, the eval case's rubrics of type TASK, or else each user message. A task is
-- decided by majority over num_samples answers (a tie is no); the score is the share of
-- tasks completed, on the last turn (earlier turns are not evaluated). A judge-model
-- counterpart of ADK's Vertex-only multi_turn_task_success_v1; usable on traffic.
-- detail: {tasks: [{key, verdict, score, rationale}], weight, reason, judge_error}
SELECT
    turn_id,
    score,
    tg_judge_detail(score, problem, failed, unjudged,
        json_object('tasks', items, 'weight', weight,
                    'rationale', list_filter(items, lambda i: i.score = 0)[1].rationale)) AS detail
FROM tg_item_turns('task_completion')
