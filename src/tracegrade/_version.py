"""This tracegrade's version: `tracegrade.__version__` loads it on first use, because
`importlib.metadata` costs a read command's start ~0.1 s."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tracegrade")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0"
