"""The `process` marker is found by itself (tests/support/tiers.py), and a test left unmarked
that starts a process fails rather than slowing the fast tier down unseen."""

from __future__ import annotations

import ctypes.util
import socket
import subprocess

import pytest

from tests.support.tiers import _reaches, guarded, starts_process


def _starts() -> None:
    subprocess.run(["true"], check=True)


def _calls_a_helper_that_starts() -> None:
    _starts()


def _in_a_closure() -> None:
    def inner() -> None:
        _calls_a_helper_that_starts()

    inner()


class _Starter:
    def go(self) -> None:
        _starts()


def _plain() -> int:
    return sum(range(3))


@pytest.mark.parametrize("test", [_starts, _calls_a_helper_that_starts, _in_a_closure, _Starter])
def test_a_process_is_found_through_the_helpers_a_test_calls(test: object) -> None:
    assert _reaches(test, set())


def test_code_that_starts_nothing_is_not_a_process_test() -> None:
    assert not _reaches(_plain, set())
    assert not _reaches(test_code_that_starts_nothing_is_not_a_process_test, set())


def test_a_test_that_starts_nothing_is_left_in_the_fast_tier(
    request: pytest.FixtureRequest,
) -> None:
    assert not starts_process(request.node)
    assert request.node.get_closest_marker("process") is None


def _listen() -> None:
    with socket.socket() as sock:
        sock.listen()


@pytest.mark.parametrize(
    ("start", "what"),
    [
        (lambda: subprocess.run(["true"], check=False), "runs 'true'"),
        (lambda: _listen(), "listens on a socket"),
    ],
    ids=["subprocess", "listen"],
)
def test_an_unmarked_test_that_starts_one_fails_saying_how_to_mark_it(
    start: object, what: str
) -> None:
    with pytest.raises(pytest.fail.Exception) as failed, guarded("tests/x.py::test_x"):
        start()  # type: ignore[operator]
    assert str(failed.value) == (
        f"tests/x.py::test_x {what} but is not marked `process`: add `@pytest.mark.process` "
        "(the fast tier, `pytest -m 'not process'`, runs no processes)"
    )


def test_git_for_the_commit_a_run_records_is_let_through(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("process") is not None  # found: it calls subprocess
    with guarded("tests/x.py::test_x"):
        done = subprocess.run(["git", "--version"], capture_output=True, check=False)
    assert done.returncode == 0


def test_a_library_looking_up_another_with_ldconfig_is_let_through() -> None:
    with guarded("tests/x.py::test_x"):
        found = ctypes.util.find_library("c")  # runs ldconfig -p (a compiler when it fails)
    assert found is not None
