"""Capture in a forked child (gunicorn --preload, multiprocessing with fork) never hangs it.

Each case runs in a subprocess of its own with a timeout, so a regression fails the test
instead of hanging the suite. On main a child waited forever in `on_end` once the queue
was full: the parent's worker thread does not exist in a child.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.fork import FORK_HELPERS, run_script

# The parent holds the database; a child ends more spans than the queue holds, flushes and
# exits the normal way (sys.exit: objects are finalised, as in a gunicorn worker).
OS_FORK = (
    FORK_HELPERS  # noqa: S608 — a Python script for a child process; its one query is a constant
    + """
db = sys.argv[1]
exporter = DuckDBSpanExporter(db)
processor = BlockingSpanProcessor(exporter, max_queue_size=100, max_batch_size=10)
provider = TracerProvider()
provider.add_span_processor(processor)
tracer = provider.get_tracer("fork")
end_spans(tracer, "parent", 5)
processor.force_flush()
before = files_digest(db)
pid = os.fork()
if pid == 0:
    end_spans(tracer, "child", 500)
    flushed = processor.force_flush(10_000)
    stats = exporter.stats
    print(json.dumps({"flushed": flushed, "failed": stats.failed, "stored": stats.stored}))
    sys.stdout.flush()
    sys.exit(0)
child_exit = wait_child(pid, 60)
untouched = files_digest(db) == before
end_spans(tracer, "parent-after", 5)
provider.shutdown()
import duckdb
with duckdb.connect(db, read_only=True) as connection:
    names = [row[0] for row in connection.execute("SELECT name FROM spans").fetchall()]
print(json.dumps({"child_exit": child_exit, "untouched": untouched, "names": names}))
"""
)

POOL = (
    FORK_HELPERS
    + """
import multiprocessing
from tracegrade.capture import configure

capture = configure(sys.argv[1], service_name="pool", max_queue_size=100)
from opentelemetry import trace
tracer = trace.get_tracer("pool")

def work(n):
    end_spans(tracer, f"task{n}", 300)
    capture.flush(10)
    return capture.stats().failed

if __name__ == "__main__":
    end_spans(tracer, "parent", 5)
    with multiprocessing.get_context("fork").Pool(2) as pool:
        failed = pool.map_async(work, range(4)).get(timeout=60)
    capture.flush()
    print(json.dumps({"failed": failed, "stored": capture.stats().stored}))
    capture.shutdown()
"""
)


def test_an_os_fork_child_ends_spans_without_waiting_and_leaves_the_file_alone(
    tmp_path: Path,
) -> None:
    (child, parent), stderr = run_script(OS_FORK, str(tmp_path / "fork.duckdb"))

    assert parent["child_exit"] == 0  # main: "hung", killed after 60 s
    assert child == {"flushed": True, "failed": 500, "stored": 0}
    assert stderr.count("its spans are not stored (DuckDB allows one writer per file)") == 1
    assert parent["untouched"]  # the child's exit did not checkpoint the parent's file
    assert sorted(parent["names"]) == sorted(
        [f"parent-{i}" for i in range(5)] + [f"parent-after-{i}" for i in range(5)]
    )


def test_a_fork_started_pool_finishes_its_tasks(tmp_path: Path) -> None:
    (result,), _ = run_script(POOL, str(tmp_path / "pool.duckdb"))
    assert len(result["failed"]) == 4
    assert all(count >= 300 for count in result["failed"])  # refused in the child, counted
    assert result["stored"] == 5
