"""The `process` marker, put on by itself: which tests start a process or a server socket.

A test is a process test when it lives in a folder whose tests all are (a browser, a Spark
cluster), or when its code or any fixture it uses reaches something that starts one:
`subprocess`, `multiprocessing`, `os.fork`, `socketserver`, `http.server`, or a helper of
`tests/` (a function or class, followed through its own code) that does. The walk reads the
names each code object uses, so a new test gets the mark from the helpers it calls.

What the walk cannot see (a library call that starts a process) the guard catches: a test
left unmarked that starts a process or listens on a socket fails, naming what it started,
so the fast tier (`-m "not process"`) stays free of them.
"""

from __future__ import annotations

import http.server
import inspect
import multiprocessing
import os
import socket
import socketserver
import subprocess
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

costly = pytest.mark.process
"""On a test that starts nothing but costs as much as one that does, ~1.5 s or more on its
own on a quiet machine (an agent replayed through ADK, a database scored, archived or read
back through the views, whose planning alone is ~0.5 s a view): the fast tier leaves it to
the full suite, as it does the tests that start a process. `bench/startup/run.py --tier`
lists the slowest tests the tier kept, for the next one to mark."""

PROCESS_FOLDERS = ("browser", "spark")
_STARTERS = (subprocess, multiprocessing, socketserver, http.server)
_OS_STARTERS = {"fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "popen"}
_OS_STARTERS |= {name for name in dir(os) if name.startswith(("spawn", "exec"))}
# Commands a library runs in passing, which start no tracegrade, server or browser: the
# harness asks git for the commit it records; ctypes.util.find_library (a library loading
# another, e.g. on first import) asks ldconfig, else a compiler or the linker.
_QUICK_COMMANDS = {"git", "ldconfig", "cc", "gcc", "ld", "objdump"}
_TESTS = Path(__file__).resolve().parents[1]


def starts_process(item: pytest.Item) -> bool:
    """Whether the test, by its folder, code or fixtures, starts a process."""
    if any(part in PROCESS_FOLDERS for part in item.path.relative_to(_TESTS).parts[:-1]):
        return True
    seen: set[types.CodeType] = set()
    if isinstance(item, pytest.Function) and _reaches(item.function, seen):
        return True
    defs = item._fixtureinfo.name2fixturedefs if isinstance(item, pytest.Function) else {}
    return any(
        _reaches(d.func, seen)
        for fixturedefs in defs.values()
        for d in fixturedefs
        if _is_ours(d.func)  # pytest's own (tmp_path, monkeypatch) start nothing
    )


def _reaches(value: Any, seen: set[types.CodeType]) -> bool:
    function = inspect.unwrap(value) if callable(value) else value
    if isinstance(function, type):
        return any(_reaches(v, seen) for v in vars(function).values() if inspect.isfunction(v))
    code = getattr(function, "__code__", None)
    if not isinstance(code, types.CodeType):
        return False
    return _code_reaches(code, getattr(function, "__globals__", {}), seen)


def _code_reaches(code: types.CodeType, names: dict[str, Any], seen: set[types.CodeType]) -> bool:
    if code in seen:
        return False
    seen.add(code)
    if names.get("os") is os and _OS_STARTERS & set(code.co_names):
        return True
    for name in code.co_names:
        value = names.get(name)
        if any(value is module for module in _STARTERS):
            return True
        if _is_ours(value) and _reaches(value, seen):
            return True
    nested = (c for c in code.co_consts if isinstance(c, types.CodeType))
    return any(_code_reaches(c, names, seen) for c in nested)


def _is_ours(value: Any) -> bool:
    """A function or class of the test suite (not of tracegrade or a library)."""
    module = getattr(value, "__module__", None) or ""
    ours = module.startswith("tests") and module != __name__  # not the guard below
    return ours and (inspect.isfunction(value) or isinstance(value, type))


@contextmanager
def guarded(nodeid: str) -> Iterator[None]:
    """Starting a process or listening on a socket fails the unmarked test `nodeid`."""
    patch = pytest.MonkeyPatch()
    refused: list[str] = []
    child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def execute_child(self: subprocess.Popen[Any], args: Any, *rest: Any) -> Any:
        command = [args] if isinstance(args, str | bytes | os.PathLike) else list(args)
        if Path(os.fsdecode(command[0]).split()[0]).name not in _QUICK_COMMANDS:
            _refuse(nodeid, f"runs {command[0]!r}", refused)
        return child(self, args, *rest)

    patch.setattr(subprocess.Popen, "_execute_child", execute_child)
    patch.setattr(os, "fork", _refusing(nodeid, "forks", refused))
    patch.setattr(socket.socket, "listen", _refusing(nodeid, "listens on a socket", refused))
    try:
        yield
    finally:
        patch.undo()
    if refused:  # also when it happened in a thread, whose exception the test may not see
        pytest.fail(refused[0], pytrace=False)


def _refusing(nodeid: str, what: str, refused: list[str]) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        _refuse(nodeid, what, refused)

    return refuse


def _refuse(nodeid: str, what: str, refused: list[str]) -> None:
    refused.append(
        f"{nodeid} {what} but is not marked `process`: add `@pytest.mark.process` (the fast "
        "tier, `pytest -m 'not process'`, runs no processes)"
    )
    pytest.fail(refused[-1], pytrace=False)
