"""The traces, monitor and turn pages through serve's application in this process
(tests/support/serve_app): what an agent or a user wrote is escaped, a filter that cannot
be read is a 400 naming it, only the traces page may send its form (to serve itself), a
turn's page links back only to serve's own pages, and a turn without captured content says
how to capture it."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.support.serve_app import ServeApp
from tests.support.span_factory import adk_like_spans, session_spans
from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.report.pages.turn_content import CAPTURE_HINT

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeApp]:
    db = tmp_path_factory.mktemp("traffic-live") / "live.duckdb"
    exporter = DuckDBSpanExporter(db)
    exporter.export(adk_like_spans(3, resource={"service.name": HOSTILE}))
    exporter.export(session_spans([1_767_225_600_000_000_000], seed=7))  # no content at all
    exporter.shutdown()
    served = ServeApp(db)
    yield served
    served.close()


def _turn_ids(app: ServeApp) -> dict[str, str]:
    rows = app.rows("SELECT root_agent || ':' || tool_calls, turn_id FROM turns ORDER BY 1")
    return {str(key): str(turn) for key, turn in rows}


@costly
def test_the_traces_page_escapes_what_agents_and_users_wrote(app: ServeApp) -> None:
    reply = app.request("GET", f"/traces?agent={quote(HOSTILE)}&text={quote(HOSTILE)}")
    assert reply.status == 200
    page = reply.body.decode()
    assert HOSTILE not in page
    assert 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in page
    everything = app.request("GET", "/traces").body.decode()
    assert everything.count('class="trace-turn') == 4
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in everything  # the service's name
    assert HOSTILE not in everything


def test_only_the_traces_page_may_send_a_form_and_only_to_serve(app: ServeApp) -> None:
    traces = app.request("GET", "/traces").body.decode()
    assert "form-action &#39;self&#39;" in traces
    monitor = app.request("GET", "/monitor").body.decode()
    assert "form-action &#39;none&#39;" in monitor
    assert "No traffic was scored in this window." in monitor


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("/traces?since=yesterday", "since must be a window such as 30m, 24h or 7d"),
        ("/traces?min_tokens=many", "min_tokens must be a number, not &#39;many&#39;"),
        ("/traces?min_latency_ms=-1", "min_latency_ms must be 0 or more"),
        ("/monitor?window=1y", "window must be one of 24h, 7d, 30d, not &#39;1y&#39;"),
    ],
)
def test_a_filter_that_cannot_be_read_is_a_400_naming_it(
    app: ServeApp, query: str, message: str
) -> None:
    reply = app.request("GET", query)
    assert reply.status == 400
    assert message in reply.body.decode()


@pytest.mark.parametrize(
    ("back", "shown"),
    [
        ("/traces?errors=1", True),
        ("/monitor?window=7d", True),
        ("//evil.example/traces", False),
        ("https://evil.example/", False),
        ("/traces/..//evil.example", False),
        ("javascript:alert(1)", False),
    ],
)
@costly
def test_a_turn_links_back_only_to_serve_s_own_pages(app: ServeApp, back: str, shown: bool) -> None:
    turn = _turn_ids(app)["shop:1"]
    page = app.request("GET", f"/turns/{turn}?back={quote(back, safe='')}").body.decode()
    assert ('class="back"' in page) is shown
    if shown:
        assert f'href="{back.replace("&", "&amp;")}" class="back"' in page


@costly
def test_a_turn_without_content_says_how_to_capture_it(app: ServeApp) -> None:
    ids = _turn_ids(app)
    bare = app.request("GET", f"/turns/{ids['shop:0']}").body.decode()
    assert CAPTURE_HINT.split(":")[0] in bare
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in bare
    captured = app.request("GET", f"/turns/{ids['shop:1']}").body.decode()
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" not in captured
