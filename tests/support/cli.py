"""Running the `tracegrade` command: in a real process, or in this one for speed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner, Result

from tracegrade.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))


def tracegrade(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """The command in its own process, its database `cli.duckdb` in `cwd`."""
    # The repository's root for tests' agents; a PYTHONPATH given (a worktree's src) stays first.
    paths = [os.environ.get("PYTHONPATH"), str(ROOT)]
    full_env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, paths)),
        "TRACEGRADE_DB": str(cwd / "cli.duckdb"),
        **(env or {}),
    }
    return subprocess.run(
        [TRACEGRADE, *args], capture_output=True, text=True, cwd=cwd, env=full_env, timeout=timeout
    )


def invoke(*args: str, columns: int | None = 100) -> Result:
    """The command in this process (no agent runs here: use `tracegrade` for those); its
    stdout is piped, `columns` wide (None: no width given, as in a CI log)."""
    env = {"COLUMNS": None if columns is None else str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    return CliRunner().invoke(app, list(args), env=env)


def one_line_error(stderr: str) -> str:
    """The single `tracegrade: ...` line a user error prints, checked to be alone."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("tracegrade: "), stderr
    assert "Traceback" not in stderr
    return lines[0]
