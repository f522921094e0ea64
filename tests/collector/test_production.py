"""collector-config/production.yaml in a real Collector: of traces sent by the OTel SDK, every
trace with an ERROR span reaches `tracegrade serve` whole, and of the rest exactly those whose
trace id the probabilistic policy's hash keeps (10%), with the bearer token serve requires."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import yaml

from tests.collector.helpers import CONFIG_DIR, start_collector, start_serve, wait_for
from tests.collector.traffic import Agent, probabilistic_keeps
from tests.serve.helpers import free_port

pytestmark = pytest.mark.slow

TRACES = 400
ERROR_SHARE = 0.15
# The config waits 60 s for a trace's spans; the SDK here sends each whole within a second.
DECISION_WAIT = "5s"
SETTLE_SECONDS = 12


def _share() -> float:
    config = yaml.safe_load((CONFIG_DIR / "production.yaml").read_text())
    (policy,) = [
        p for p in config["processors"]["tail_sampling"]["policies"] if p["type"] == "probabilistic"
    ]
    share: float = policy["probabilistic"]["sampling_percentage"]
    return share


def test_production_keeps_every_error_trace_and_the_share_the_trace_id_decides(
    otelcol: Path, tmp_path: Path
) -> None:
    share = _share()
    serve = start_serve(tmp_path, tmp_path / "served.duckdb", free_port(), free_port())
    try:
        collector = start_collector(
            otelcol,
            "production.yaml",
            tmp_path,
            {"TRACEGRADE_ENDPOINT": serve.url, "COLLECTOR_DECISION_WAIT": DECISION_WAIT},
        )
        try:
            agent = Agent(collector.http_url)
            agent.send(TRACES, ERROR_SHARE, random.Random(27))
            agent.close()
            sent = agent.sent
            kept = {t for t in sent.spans if t in sent.errors or probabilistic_keeps(t, share)}
            expected = {(t, s) for t in kept for s in sent.spans[t]}
            wait_for(lambda: set(serve.ids()) >= expected, 120, "the kept traces reaching serve")
            # Every trace was decided within the same wait; a wrongly kept one would follow in
            # the next batches (timeout 5 s), so look again after those.
            time.sleep(SETTLE_SECONDS)
            stored = serve.ids()
        finally:
            collector.stop()
        unauthenticated = serve.post("/v1/traces", b"", {"authorization": "Bearer wrong"})
    finally:
        serve.stop()

    assert unauthenticated.status == 401  # what arrived came with the Collector's token
    assert len(stored) == len(set(stored))
    assert set(stored) == expected, collector.stderr()
    rest = len(sent.spans) - len(sent.errors)
    assert len(sent.errors) > 30
    assert rest > 300
    # The hash keeps about the configured share of the rest (a check of the model above).
    assert 0.5 * share / 100 < len(kept - sent.errors) / rest < 1.5 * share / 100
