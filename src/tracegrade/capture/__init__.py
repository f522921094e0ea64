"""In-process capture: the exporter and processor users put into their agents.

Kept light on purpose: nothing here imports the CLI, terminal or web-server code.
"""

from tracegrade.capture.configure import Capture, CaptureStats, configure, configure_otlp
from tracegrade.capture.exporter import DuckDBSpanExporter, ExportStats
from tracegrade.capture.processor import BlockingSpanProcessor

__all__ = [
    "BlockingSpanProcessor",
    "Capture",
    "CaptureStats",
    "DuckDBSpanExporter",
    "ExportStats",
    "configure",
    "configure_otlp",
]
