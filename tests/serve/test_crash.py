"""kill -9 in the middle of a stream: every acknowledged span survives a restart."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.support.span_factory import adk_like_spans

from .helpers import PROTOBUF, ids_of, protobuf, start_server


def test_acknowledged_spans_survive_kill_9(workdir: Path) -> None:
    server = start_server(workdir)
    spans = adk_like_spans(1000, seed=30)  # 5000 spans
    batches = [spans[i : i + 100] for i in range(0, len(spans), 100)]
    acknowledged: list[int] = []
    refused: list[int] = []
    stop = threading.Event()

    def send() -> None:
        for index, batch in enumerate(batches):
            if stop.is_set():
                return
            try:
                status = server.post("/v1/traces", protobuf(batch), PROTOBUF, timeout=5).status
            except OSError:
                refused.append(index)  # the server is gone: the sender keeps trying the rest
                continue
            (acknowledged if status == 200 else refused).append(index)

    sender = threading.Thread(target=send)
    sender.start()
    while len(acknowledged) < 15 and sender.is_alive():
        time.sleep(0.001)
    server.kill()  # SIGKILL: no flush, no cleanup
    sender.join(30)
    stop.set()
    assert not sender.is_alive()
    assert acknowledged, "nothing was acknowledged before the kill"
    assert refused, "every request succeeded: the kill did not land mid-stream"

    restarted = start_server(workdir, db=server.db)
    try:
        present = set(restarted.ids())
        for index in acknowledged:
            missing = ids_of(batches[index]) - present
            assert not missing, f"batch {index} was acknowledged but {len(missing)} spans are gone"
        # The stale sidecar of the killed process does not fool discovery: the new one replaced it.
        from tracegrade.remote import find_server

        found = find_server(server.db)
        assert found is not None
        assert found.pid == restarted.process.pid
    finally:
        assert restarted.stop() == 0
