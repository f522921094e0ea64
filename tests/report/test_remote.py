"""Reports read through a remote endpoint's JSON give the same reports as the local file."""

from __future__ import annotations

from tests.report.helpers import BASE_RUN, NEXT_RUN, JsonReader
from tracegrade.report import RunReport, build_report, diff_runs, list_runs, to_json, to_junit
from tracegrade.store import LocalReader


def test_values_really_arrive_json_decoded(json_reader: JsonReader) -> None:
    (row,) = json_reader.query(
        "SELECT started_at, models FROM eval_runs WHERE run_id = ?", [BASE_RUN]
    )[1]
    assert row == ("2026-01-01T00:00:00", ["billing-model", "gemini-2.5-flash"])


def test_run_report(base_report: RunReport, json_reader: JsonReader) -> None:
    local = base_report
    remote = build_report(json_reader, run_id=BASE_RUN)
    assert remote == local
    assert to_json(remote) == to_json(local)
    assert to_junit(remote) == to_junit(local)


def test_diff_and_runs(reader: LocalReader, json_reader: JsonReader) -> None:
    assert diff_runs(json_reader, BASE_RUN, NEXT_RUN) == diff_runs(reader, BASE_RUN, NEXT_RUN)
    assert list_runs(json_reader) == list_runs(reader)
