-- metric: latency
-- better: lower
-- needs: nothing
-- range: 0..
-- unit: ms
-- One row per turn: the turn's wall-clock time in milliseconds (its root span). Budgets:
-- `max` per turn, `p50` / `p95` over the run.
SELECT turn_id, latency_ms AS score, NULL::JSON AS detail
FROM scored_turns
