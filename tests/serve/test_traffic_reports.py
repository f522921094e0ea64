"""`tracegrade score` on traffic writes its JSON and JUnit reports, on the file and through
a `tracegrade serve` that holds it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.serve.helpers import JSON, Server
from tests.support.cli import one_line_error, tracegrade
from tests.support.paths import DATA
from tracegrade.exit_codes import ExitCode

TRAFFIC = DATA / "traces" / "adk_v2_b.otlp.jsonl"  # one session of two turns
CRITERIA = {
    "criteria": {"tool_trajectory_avg_score": 1.0},
    "tracegrade": {"criteria": {"latency": {"max": 1}, "tool_call_count": 10}},
}
SESSION = "session_id = 'session-adk-v2-b'"


def _check_reports(tmp_path: Path) -> None:
    report = json.loads((tmp_path / "traffic.json").read_text())
    assert report["overall"]["turns"] == 2
    assert report["exit_code"] == ExitCode.GATE_FAILED  # latency over 1 ms
    suite = ET.parse(tmp_path / "traffic.xml").getroot().find("testsuite")
    assert suite is not None
    outcomes = {c.get("name"): [e.tag for e in c] for c in suite.iter("testcase")}
    assert outcomes == {
        "latency": ["failure"],
        "tool_call_count": [],
        "error_rate": [],
        "tool_trajectory_avg_score": ["skipped"],
    }
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "1")


def _score(tmp_path: Path, *where: str) -> tuple[str, ...]:
    config = tmp_path / "criteria.json"
    config.write_text(json.dumps(CRITERIA))
    return ("score", "--since", "3650d", *where, "--config", str(config),
            "--json", "traffic.json", "--junit", "traffic.xml")  # fmt: skip


def test_traffic_reports_are_written_locally(tmp_path: Path) -> None:
    tracegrade("ingest", str(TRAFFIC), cwd=tmp_path)
    done = tracegrade(*_score(tmp_path), cwd=tmp_path)
    assert done.returncode == ExitCode.GATE_FAILED, done.stderr
    _check_reports(tmp_path)


@pytest.mark.usefixtures("server")
def test_traffic_reports_are_written_through_serve(server: Server, tmp_path: Path) -> None:
    for line in TRAFFIC.read_text().splitlines():
        assert server.post("/v1/traces", line.encode(), JSON).status == 200
    done = tracegrade(*_score(tmp_path, "--where", SESSION), "--server", server.url, cwd=tmp_path)
    assert done.returncode == ExitCode.GATE_FAILED, done.stderr
    _check_reports(tmp_path)


@pytest.mark.usefixtures("server")
@pytest.mark.parametrize(
    "args",
    [
        ("sql", "select nope from turns"),
        ("score", "--since", "3650d", "--where", "nope > 1"),
    ],
)
def test_sql_failing_at_the_server_is_one_line(
    server: Server, tmp_path: Path, args: tuple[str, ...]
) -> None:
    done = tracegrade(*args, "--server", server.url, cwd=tmp_path)

    assert done.returncode == ExitCode.USAGE_ERROR, done.stderr
    assert 'Binder Error: Referenced column "nope" not found' in one_line_error(done.stderr)
