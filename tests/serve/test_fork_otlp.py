"""A forked child of an app capturing over OTLP sends its spans with a worker of its own."""

from __future__ import annotations

from tests.support.fork import FORK_HELPERS, run_script

from .helpers import Server

OTLP = (
    FORK_HELPERS
    + """
from opentelemetry import trace
from tracegrade.capture import configure_otlp

capture = configure_otlp(sys.argv[1], service_name="forked")
tracer = trace.get_tracer("otlp")
end_spans(tracer, "parent", 3)
capture.flush()
pid = os.fork()
if pid == 0:
    end_spans(tracer, "child", 20)
    ok = capture.flush(10)
    print(json.dumps({"flushed": ok}))
    sys.stdout.flush()
    sys.exit(0)
print(json.dumps({"child_exit": wait_child(pid, 60)}))
capture.shutdown()
"""
)


def test_a_forked_child_exports_over_otlp_with_a_worker_of_its_own(server: Server) -> None:
    (child, parent), _ = run_script(OTLP, server.url)
    assert child == {"flushed": True}
    assert parent == {"child_exit": 0}
    names = server.rows("SELECT name FROM spans WHERE service_name = 'forked' ORDER BY name")
    assert sorted(name for (name,) in names) == sorted(
        [f"parent-{i}" for i in range(3)] + [f"child-{i}" for i in range(20)]
    )
