"""collector-config/sharded.yaml in a real Collector in front of two real `tracegrade serve`
shards: each trace the OTel SDK sends lands whole on one shard, and the shards' union is every
span exactly once, also when one shard is killed with SIGKILL mid-traffic and restarted (the
load_balancing exporter's file-backed queue keeps what that shard has not acknowledged)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.collector.helpers import start_collector, start_serve, wait_for
from tests.collector.traffic import Agent
from tests.serve.helpers import Server, free_port

pytestmark = pytest.mark.slow

BURSTS = 30
TRACES_PER_BURST = 10


def _shard(workdir: Path, name: str) -> Server:
    return start_serve(workdir, workdir / f"{name}.duckdb", free_port(), free_port())


def _union(shards: list[Server]) -> list[tuple[str, str, int]]:
    return [(t, s, i) for i, shard in enumerate(shards) for t, s in shard.ids()]


def test_each_trace_lands_whole_on_one_shard_through_a_shard_restart(
    otelcol: Path, tmp_path: Path
) -> None:
    shards = [_shard(tmp_path, "s0"), _shard(tmp_path, "s1")]
    try:
        collector = start_collector(
            otelcol,
            "sharded.yaml",
            tmp_path,
            {
                "TRACEGRADE_SHARD_0": shards[0].grpc_target,
                "TRACEGRADE_SHARD_1": shards[1].grpc_target,
                "COLLECTOR_STORAGE_DIR": str(tmp_path / "queue"),
            },
        )
        try:
            agent = Agent(collector.http_url)
            rng = random.Random(8)

            def traffic() -> None:
                for _ in range(BURSTS):
                    agent.send(TRACES_PER_BURST, 0.1, rng)
                    time.sleep(0.3)

            sender = threading.Thread(target=traffic)
            sender.start()
            time.sleep(3)
            # Mid-traffic: shard 1 dies without a chance to flush, and comes back on its ports.
            shards[1].kill()
            time.sleep(4)
            shards[1] = start_serve(tmp_path, shards[1].db, shards[1].port, shards[1].grpc_port)
            sender.join(timeout=120)
            assert not sender.is_alive()
            agent.close()
            expected = agent.sent.ids()
            wait_for(
                lambda: {(t, s) for t, s, _ in _union(shards)} >= expected,
                180,
                "every span reaching a shard",
            )
            union = _union(shards)
        finally:
            collector.stop()
    finally:
        for shard in shards:
            shard.stop()

    stored = Counter((t, s) for t, s, _ in union)
    assert set(stored) == expected, collector.stderr()
    assert set(stored.values()) == {1}  # exactly once, across both shards
    homes: dict[str, set[int]] = {}
    for t, _, index in union:
        homes.setdefault(t, set()).add(index)
    assert all(len(home) == 1 for home in homes.values())  # each trace whole on one shard
    per_shard = Counter(next(iter(home)) for home in homes.values())
    assert per_shard[0] > 0
    assert per_shard[1] > 0
