-- turn_fact_calls: the calls' error type, so that a run's report reads its calls from the
-- facts as it reads its turns (report/queries.py), where it planned the `tool_calls` view.
-- Facts stored before this are stale by their version (store/turn_facts.py) and not read.
--
-- Columns:
--   error_type      the error's type, e.g. TOOL_ERROR, ValueError (see tool_calls)
ALTER TABLE turn_fact_calls ADD COLUMN error_type VARCHAR;
