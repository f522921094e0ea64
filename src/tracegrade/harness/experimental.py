"""ADK marks its evaluation classes experimental and warns on first use; tracegrade uses
them knowingly, so its users are not told on every run."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def quiet_experimental() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"\[EXPERIMENTAL\]", UserWarning)
        yield
