"""tracegrade: grade LLM agents from their OpenTelemetry traces."""

from importlib.metadata import PackageNotFoundError, version

from tracegrade.capture import BlockingSpanProcessor, Capture, DuckDBSpanExporter, configure
from tracegrade.errors import TracegradeError

try:
    __version__ = version("tracegrade")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0"

__all__ = [
    "BlockingSpanProcessor",
    "Capture",
    "DuckDBSpanExporter",
    "TracegradeError",
    "__version__",
    "configure",
]
