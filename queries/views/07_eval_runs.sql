-- eval_runs: one row per eval run (`tracegrade run`), read from the run's own span, so a
-- run exported over OTLP is recorded wherever its turns land.
--
-- Tags (`tracegrade run --tag`) are an attribute of that span too, not a table: they are
-- known before the run starts, so they travel with it wherever its spans go (OTLP through
-- a Collector, shards, the archive), and a token's signature covers them, so a forged
-- span cannot claim `--baseline main`. No migration: the span already holds them.
--
-- Columns:
--   run_id               the run
--   started_at           when it started, as its span says (the sender's clock: order runs
--                        by received_at)
--   agent                the agent reference it replayed
--   eval_sets            JSON list of {eval_set_id, path, sha256, cases}
--   models               the models in the agent tree
--   repeats              repeats per case
--   parallel             cases run at once
--   cases                cases replayed
--   adk_version          google-adk version
--   tracegrade_version   tracegrade version
--   git_commit           the working directory's git commit, if in a repository
--   tags                 the names given with `--tag` (`--baseline TAG` finds the newest
--                        run carrying one); empty when none were
--   criteria             the criteria document the run was made with (JSON)
--   trace_id             the trace holding the run and case spans
--   received_at          when this database stored the run's span (its own clock)
CREATE OR REPLACE VIEW eval_runs AS
WITH cases AS (
    -- tg_run_ids: the cases' attributes are read only where the writer stored no `attrs`
    -- (every `tracegrade score` reads this view).
    SELECT run_id, count(*) AS cases
    FROM tg_run_ids('spans', 'tracegrade.eval_case')
    GROUP BY ALL
)
SELECT
    r.attributes->>'tracegrade.run_id' AS run_id,
    make_timestamp(r.start_ns // 1000) AS started_at,
    r.attributes->>'tracegrade.agent' AS agent,
    CAST(r.attributes->>'tracegrade.eval_sets' AS JSON) AS eval_sets,
    from_json(r.attributes->'tracegrade.models', '["VARCHAR"]') AS models,
    (r.attributes->>'tracegrade.repeats')::INTEGER AS repeats,
    (r.attributes->>'tracegrade.parallel')::INTEGER AS parallel,
    coalesce(c.cases, 0) AS cases,
    r.attributes->>'tracegrade.adk_version' AS adk_version,
    r.attributes->>'tracegrade.version' AS tracegrade_version,
    r.attributes->>'tracegrade.git_commit' AS git_commit,
    coalesce(from_json(r.attributes->'tracegrade.tags', '["VARCHAR"]'), []::VARCHAR[]) AS tags,
    CAST(r.attributes->>'tracegrade.criteria' AS JSON) AS criteria,
    r.trace_id,
    r.ingested_at AS received_at
FROM spans r
LEFT JOIN cases c ON c.run_id = r.attributes->>'tracegrade.run_id'
WHERE r.scope_name = 'tracegrade' AND r.name = 'tracegrade.eval_run'
