"""Spans from other instrumentations, made by the real libraries (the `interop` extra).

Without the extra these tests skip, except under CI (CI=1, set by .ci/run), where they fail:
CI must never go green by skipping them.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
import warnings
from collections.abc import Iterator

import pytest

REQUIRED = os.environ.get("CI", "").lower() in ("1", "true")


def need(*modules: str) -> None:
    """Import the producer's modules, or skip (fail under CI) naming what is missing."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as error:
            message = f"{module} is not installed (pip install 'tracegrade[interop]'): {error}"
            if REQUIRED:
                pytest.fail(f"CI is set but {message}")
            pytest.skip(message)


@pytest.fixture
def content_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Message content captured on spans, as the GenAI instrumentations are told to."""
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")


@pytest.fixture(autouse=True)
def _collect_what_the_libraries_leave() -> Iterator[None]:
    """Some of these libraries leave an event loop (and its socket pair) unclosed when a
    synchronous call returns, set as the thread's current loop. Dropped and collected here,
    the leak is this folder's own; left for later, the next test that collects garbage (the
    harness's warm-up does) errors on it."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        asyncio.set_event_loop(None)
        gc.collect()
