"""Text from agents, tools and eval sets cannot drive the terminal a summary is printed on.

The committed fixture runs, with escape sequences planted in an agent's final answer (OSC 52
writes the clipboard, OSC 0 retitles the window), a tool argument (CSI clears the screen,
OSC 8 hides a link) and a case id (a carriage return, a backspace and a bell), are ingested
through the real file path, scored, and summarised as `tracegrade run` and `report` do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.report.helpers import BASE_RUN, RUNS_FIXTURE, scored_db
from tests.support.cli import invoke
from tests.support.tiers import costly
from tracegrade.report import build_overview, build_report, render_overview, render_terminal
from tracegrade.store import LocalReader, connect
from tracegrade.terminal_safe import terminal_text

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x1b\\"
CLEAR = "\x1b[2J\x1b[H"
LINK = "\x1b]8;;https://evil.example/\x1b\\"
PLANTED = {
    "Your cart is ready.": f"Your cart{CLIPBOARD} is ready.{TITLE}",
    "apple": f"app{CLEAR}{LINK}le",
    "pear_only": "pear_only\r\x08\x07\x9b2J",
}
SGR = re.compile(r"\x1b\[[0-9;]*m")  # the summary's own colours


def _planted(value: Any) -> Any:
    """Every string with the sequences planted, JSON inside a string included."""
    if isinstance(value, dict):
        return {k: _planted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_planted(v) for v in value]
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.dumps(_planted(json.loads(value)))
        except ValueError:
            pass
    if isinstance(value, str):
        for plain, hostile in PLANTED.items():
            value = value.replace(plain, hostile)
    return value


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    lines = RUNS_FIXTURE.read_text().splitlines()
    source = folder / "hostile.otlp.jsonl"
    source.write_text("".join(json.dumps(_planted(json.loads(line))) + "\n" for line in lines))
    return scored_db(folder / "hostile.duckdb", source)


def _assert_harmless(out: str) -> None:
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", SGR.sub("", out))


@costly
def test_the_planted_text_is_stored_as_sent(hostile_db: Path) -> None:
    connection = connect(hostile_db, read_only=True)
    try:
        texts = [r[0] for r in connection.execute("SELECT final_text FROM turns").fetchall()]
    finally:
        connection.close()
    assert any(CLIPBOARD in (t or "") for t in texts)  # else this file tests nothing


@pytest.mark.parametrize("color", [False, True])
def test_run_summary_and_overview_print_no_sequence_from_data(
    hostile_db: Path, color: bool
) -> None:
    connection = connect(hostile_db, read_only=True)
    try:
        reader = LocalReader(connection)
        summary = render_terminal(build_report(reader, run_id=BASE_RUN), 120, color)
        overview = render_overview(build_overview(reader, run_id=BASE_RUN), 120, color)
    finally:
        connection.close()
    _assert_harmless(summary)
    _assert_harmless(overview)
    plain = SGR.sub("", summary)
    assert "shop/pear_only" in plain
    assert "Your cart is ready." in plain
    assert 'price(item="apple")' in plain
    assert "pwned" not in plain
    assert "evil.example" not in plain


def test_report_and_sql_commands_print_no_sequence_from_data(hostile_db: Path) -> None:
    report = invoke("report", BASE_RUN, "--db", str(hostile_db), columns=120)
    table = invoke("sql", "SELECT case_id, final_text FROM turns", "--db", str(hostile_db))
    for done in (report, table):
        assert done.exit_code in (0, 1), done.output
        _assert_harmless(done.stdout)
    assert "Your cart is ready." in table.stdout


def test_terminal_text_strips_sequences_and_controls() -> None:
    assert terminal_text(f"a{CLIPBOARD}b{TITLE}c{CLEAR}d{LINK}e") == "abcde"
    assert terminal_text("one\r\ntwo\tthree\x08\x07\x00") == "one two three"
    assert terminal_text("\x9b31m8-bit\x9d0;t\x9c csi \x1bc reset \x1b") == "8-bit csi  reset "
    assert terminal_text("open \x1b]52;c;never-terminated") == "open "
    assert terminal_text("plain ünïcödé ✓ [link=x]") == "plain ünïcödé ✓ [link=x]"
