"""The monitor, traces and turn pages of a real `tracegrade serve`, in Chromium, over real
traffic: google-adk agents with scripted models, run as two deploys of one service
(service.version 1.0, then 1.1) in their own processes and captured by tracegrade's
exporter with content on, then scored as `tracegrade score` scores traffic, with a scripted
judge (tests/browser/monitor_judge.py) for hallucinations_v1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.conftest import ROOT, tracegrade
from tests.browser.monitor_judge import RATIONALE
from tests.serve.helpers import Server, start_server
from tests.support.browser import OpenPage, Watched, screenshot
from tests.support.span_factory import adk_like_spans

TOKEN = "monitor-browser-token"
CRITERIA = {
    "criteria": {
        "token_usage": {"max": 1000},
        "hallucinations_v1": {
            "threshold": 0.7,
            "judge_model_options": {"judge_model": "monitor-judge"},
        },
    },
    "tracegrade": {"max_error_rate": 1.0},  # the refund turn crashes on purpose
}


def _run_traffic(db: Path, version: str) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)])),
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.browser.traffic_agent", str(db), version],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("monitor")
    db = folder / "traffic.duckdb"
    _run_traffic(db, "1.0")
    _run_traffic(db, "1.1")
    criteria = folder / "criteria.json"
    criteria.write_text(json.dumps(CRITERIA))
    judge = str(ROOT / "tests" / "browser" / "monitor_judge.py")
    tracegrade(
        "score",
        "--sample",
        "1",
        "--config",
        str(criteria),
        "--db",
        str(db),
        "--judge-import",
        judge,
        expect=1,
    )  # fmt: skip  (over budget: a failure)
    copy = folder / "serve" / db.name
    copy.parent.mkdir()
    shutil.copy(db, copy)
    server = start_server(copy.parent, db=copy, token=TOKEN)
    yield server
    server.stop()


def _signed_in(open_page: OpenPage, server: Server, path: str) -> Watched:
    separator = "&" if "?" in path else "?"
    watched = open_page(f"{server.url}{path}{separator}token={TOKEN}", origin=server.url)
    assert watched.page.url == f"{server.url}{path}"  # signed in, the token left the address
    return watched


def test_the_monitor_plots_points_thresholds_and_the_version_change(
    open_page: OpenPage, served: Server
) -> None:
    watched = _signed_in(open_page, served, "/monitor")
    page = watched.page
    tokens = page.locator("#series-token_usage")
    # One point per hour and version: both deploys ran within the last hour or two.
    points = tokens.locator("g.points circle")
    assert 2 <= points.count() <= 4
    assert tokens.locator("g.threshold line").count() == 1  # token_usage max 1000
    assert tokens.locator("g.version line").count() == 1  # 1.0 → 1.1
    assert "version 1.1" in (tokens.locator("g.version-label").text_content() or "")
    assert page.locator("#series-hallucinations_v1 g.threshold line").count() == 1  # ≥ 0.7
    numbers = tokens.locator("details table tbody tr").all_text_contents()
    assert {"1.0", "1.1"} <= {
        version for row in numbers for version in ("1.0", "1.1") if version in row
    }
    screenshot(page, "live-monitor")
    page.get_by_role("link", name="30d").click()
    page.wait_for_url(f"{served.url}/monitor?window=30d")
    assert 2 <= page.locator("#series-token_usage g.points circle").count() <= 4  # daily
    assert page.locator("#series-token_usage g.version line").count() == 1
    watched.assert_clean()


def _listed(page: object) -> list[str]:
    rows = page.locator("table.traces tbody tr")  # type: ignore[attr-defined]
    return list(rows.locator("td:nth-child(8)").all_inner_texts())


def test_the_traces_filters_narrow_the_list(open_page: OpenPage, served: Server) -> None:
    watched = _signed_in(open_page, served, "/traces")
    page = watched.page
    everything = _listed(page)
    assert len(everything) == 5
    assert everything[0] == "Where is my latest order?"  # newest first
    assert everything[-1] == "Where is order 17?"
    screenshot(page, "live-traces")

    def narrowed(**fields: str) -> list[str]:
        page.goto(f"{served.url}/traces")
        for name, value in fields.items():
            if name == "errors":
                page.locator("input[name=errors]").check()
            elif name == "since":
                page.locator("select[name=since]").select_option(value)
            else:
                page.locator(f"input[name={name}]").fill(value)
        with page.expect_navigation():
            page.get_by_role("button", name="filter").click()
        return _listed(page)

    assert narrowed(agent="help_desk") == ["How do I reset my password?"]
    assert len(narrowed(agent="shop")) == 4
    # An error: the turn crashed (the refund), or one of its calls failed (a tool called
    # without its required argument answers with an error).
    assert narrowed(agent="shop", errors="1") == [
        "Where is my latest order?",
        "Refund order 99 please",
    ]
    sent = parse_qs(urlsplit(page.url).query)  # the form's own address: shareable
    assert (sent["agent"], sent["errors"]) == (["shop"], ["1"])
    assert narrowed(tool="refund") == ["Refund order 99 please"]
    assert narrowed(text="DISCOUNT") == ["Where is order 18?"]  # the final message's text
    assert narrowed(min_tokens="1000") == ["Where is order 18?"]
    assert len(narrowed(service="shop_app", since="1h")) == 5
    assert narrowed(service="another_app") == []
    assert len(narrowed(min_latency_ms="600000")) == 0
    watched.assert_clean()


def test_the_turn_page_shows_messages_traceback_and_rationale(
    open_page: OpenPage, served: Server
) -> None:
    watched = _signed_in(open_page, served, "/traces?errors=1&tool=refund")
    page = watched.page
    page.locator("table.traces tbody tr a").first.click()
    page.wait_for_url(f"{served.url}/turns/**")
    traceback = page.locator("details.traceback").last
    traceback.locator("summary").click()
    assert "ValueError: order 99 was never paid" in traceback.inner_text()
    assert "in refund" in traceback.inner_text()  # the frame that raised
    back = page.locator("a.back")
    assert back.get_attribute("href") == "/traces?errors=1&tool=refund"

    page.goto(f"{served.url}/traces?text=discount")
    page.locator("table.traces tbody tr a").first.click()
    page.wait_for_url(f"{served.url}/turns/**")
    messages = page.locator("details.messages").last
    messages.locator("summary").click()
    assert "Where is order 18?" in messages.inner_text()  # the request's user message
    assert "You also get a 20% discount." in messages.inner_text()  # the model's output
    args = page.locator("table.waterfall").inner_text()
    assert '"order_id": 18' in args  # the tool's arguments, as captured
    findings = page.locator("ul.findings").inner_text()
    assert RATIONALE in findings  # the judge's rationale, from the score's detail
    screenshot(page, "live-turn-findings")

    page.goto(f"{served.url}/traces?text=latest")
    page.locator("table.traces tbody tr a").first.click()
    page.wait_for_url(f"{served.url}/turns/**")
    validity = page.locator("ul.findings li.invalid_call").inner_text()
    assert "call 1 lookup_order argument order_id: missing_argument:" in validity
    assert "required" in validity
    page.locator("a.back").click()
    page.wait_for_url(f"{served.url}/traces?text=latest")
    assert _listed(page) == ["Where is my latest order?"]
    watched.assert_clean()


# Last in this module: it adds a turn to the served database the other tests count.
def test_the_traces_page_fills_as_turns_arrive(open_page: OpenPage, served: Server) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    watched = _signed_in(open_page, served, "/traces?follow=1")
    page = watched.page
    assert page.locator("table.traces tbody tr").count() == 5
    assert page.locator("meta[http-equiv=refresh]").count() == 1
    late = page.locator("table.traces td", has_text="late_app")
    assert late.count() == 0
    exporter = OTLPSpanExporter(
        endpoint=f"{served.url}/v1/traces", headers={"authorization": f"Bearer {TOKEN}"}
    )
    spans = adk_like_spans(1, seed=42, resource={"service.name": "late_app"})
    assert exporter.export(spans) == SpanExportResult.SUCCESS  # the real OTel SDK exporter
    exporter.shutdown()  # type: ignore[no-untyped-call]
    late.wait_for(timeout=30_000)  # the page reloads itself until the turn is listed
    assert page.locator("table.traces tbody tr").count() == 6
    page.get_by_role("link", name="stop").click()
    page.wait_for_url(f"{served.url}/traces")
    assert page.locator("meta[http-equiv=refresh]").count() == 0
    watched.assert_clean()
