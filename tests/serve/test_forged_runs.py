"""A `tracegrade.eval_run` span anyone can send over OTLP, dated ten years ahead, is never
the run that `tracegrade runs` lists as newest, or that "latest" scores and reports: runs
are ordered by when serve received them; with a token, a run its sender could not sign
under the token is marked and skipped.

Real processes: `tracegrade serve`, a real `tracegrade run` exporting over OTLP/HTTP, and
the forged spans sent to /v1/traces as an attacker would (with a token set, through a
Collector that adds the token: here, the bearer header the Collector would send)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from .helpers import PROTOBUF, TRACEGRADE, Server, protobuf, request, start_server

ROOT = Path(__file__).parents[2]
SHOP = ROOT / "tests" / "data" / "evalsets" / "harness" / "shop.evalset.json"
AGENT = "tests.harness.shop_agent.agent:root_agent"
TEN_YEARS_NS = 10 * 365 * 86400 * 10**9
TOKEN = "forged-runs-token"
CONFIG = {"criteria": {"tool_trajectory_avg_score": 1.0}, "tracegrade": {"max_error_rate": 0.5}}


def _tracegrade(*args: str, cwd: Path, token: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRACEGRADE_", "OTEL_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    if token:
        env["TRACEGRADE_TOKEN"] = token
        # The run exports straight to serve here; a Collector would add this header itself.
        env["OTEL_EXPORTER_OTLP_HEADERS"] = f"authorization=Bearer%20{token}"
    return subprocess.run(
        [TRACEGRADE, *args], capture_output=True, text=True, cwd=cwd, timeout=300, env=env
    )


def _forged_run(run_id: str, extra: dict[str, Any] | None = None) -> list[ReadableSpan]:
    """A run span as `tracegrade run` writes it, but started ten years from now."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "attacker"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    start = time.time_ns() + TEN_YEARS_NS
    attributes = {
        "tracegrade.run_id": run_id,
        "tracegrade.agent": "evil:agent",
        "tracegrade.eval_sets": json.dumps([{"eval_set_id": "shop", "cases": 1}]),
        "tracegrade.repeats": 1,
        "tracegrade.criteria": json.dumps({"criteria": {"response_match_score": 0.0}}),
        **(extra or {}),
    }
    span = provider.get_tracer("tracegrade").start_span(
        "tracegrade.eval_run", start_time=start, attributes=attributes
    )
    span.end(end_time=start + 10**9)
    return list(memory.get_finished_spans())


def _send(server: Server, spans: list[ReadableSpan]) -> None:
    reply = server.post("/v1/traces", protobuf(spans), PROTOBUF)
    assert reply.status == 200, reply.body
    deadline = time.monotonic() + 30  # stored once the commit loop has run
    run_id = spans[0].attributes["tracegrade.run_id"] if spans[0].attributes else None
    while time.monotonic() < deadline:
        if server.rows("SELECT count(*) FROM eval_runs WHERE run_id = ?", [run_id]) != [[0]]:
            return
        time.sleep(0.1)
    raise AssertionError(f"the forged run {run_id} was not stored")


def _real_run(server: Server, cwd: Path, token: str | None) -> str:
    (cwd / "criteria.json").write_text(json.dumps(CONFIG))
    done = _tracegrade(
        "run", str(SHOP), "--agent", AGENT, "--config", str(cwd / "criteria.json"),
        "--otlp-endpoint", server.url,
        "--server", server.url, "--json", str(cwd / "run.json"), cwd=cwd, token=token,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    run_id: str = json.loads((cwd / "run.json").read_text())["run"]["run_id"]
    return run_id


def _runs(server: Server, cwd: Path, token: str | None) -> list[dict[str, Any]]:
    listed = _tracegrade("runs", "--server", server.url, "--json", cwd=cwd, token=token)
    assert listed.returncode == 0, listed.stderr
    runs: list[dict[str, Any]] = json.loads(listed.stdout)
    return runs


def _score_latest(server: Server) -> dict[str, Any]:
    reply = server.post("/v1/score", b"{}", {"content-type": "application/json"}, timeout=120)
    assert reply.status == 200, reply.body
    summary: dict[str, Any] = reply.json()
    return summary


def test_a_run_dated_ten_years_ahead_is_not_the_latest(tmp_path: Path) -> None:
    server = start_server(tmp_path, token="")
    try:
        _send(server, _forged_run("29991231T000000-forged"))
        real = _real_run(server, tmp_path, None)
        runs = _runs(server, tmp_path, None)
        scored = _score_latest(server)
    finally:
        server.stop()
    assert [r["run_id"] for r in runs] == [real, "29991231T000000-forged"]
    assert runs[1]["started_at"] > runs[0]["started_at"]  # what it claims, listed second
    assert [r["signed"] for r in runs] == [None, None]  # no token: nothing to tell apart
    assert scored["run_id"] == real


def test_with_a_token_an_unsigned_run_is_marked_and_never_latest(tmp_path: Path) -> None:
    server = start_server(tmp_path, token=TOKEN)
    try:
        real = _real_run(server, tmp_path, TOKEN)
        signature = server.rows(
            "SELECT attributes->>'tracegrade.run_signature' FROM spans "
            "WHERE name = 'tracegrade.eval_run'"
        )[0][0]
        # Received after the real run: one unsigned, one carrying the real run's signature.
        _send(server, _forged_run("29991231T000000-forged"))
        _send(
            server, _forged_run("29991231T000001-copied", {"tracegrade.run_signature": signature})
        )
        runs = _runs(server, tmp_path, TOKEN)
        scored = _score_latest(server)
        table = _tracegrade("runs", "--server", server.url, cwd=tmp_path, token=TOKEN)
        page = request(server.port, "GET", "/", None, server.auth, 60)
        report = _tracegrade(
            "report", "--server", server.url, "--json", str(tmp_path / "latest.json"),
            cwd=tmp_path, token=TOKEN,
        )  # fmt: skip
    finally:
        server.stop()
    assert isinstance(signature, str)
    assert len(signature) == 64
    listed = {r["run_id"]: r["signed"] for r in runs}
    assert listed == {real: True, "29991231T000000-forged": False, "29991231T000001-copied": False}
    assert runs[-1]["run_id"] == real  # received first: listed last, and still the latest
    assert scored["run_id"] == real
    assert report.returncode in (0, 1), report.stderr
    assert json.loads((tmp_path / "latest.json").read_text())["run"]["run_id"] == real
    signed_column = {line.split()[0]: line.split()[-1] for line in table.stdout.splitlines()[2:]}
    assert signed_column["29991231T000000-forged"] == "NO"
    assert signed_column[real] == "yes"
    assert page.status == 200
    rows = {row.split("</td>")[0]: row for row in page.body.decode().split("<tr><td>")[1:]}
    assert [r for r in rows if "unsigned" in r] == [
        r for r in rows if "29991231T" in r
    ]  # the live page marks the two forged runs, and only them
    assert len([r for r in rows if "29991231T" in r]) == 2
