"""`tracegrade serve`: the OTLP receiver (HTTP and gRPC), read-only SQL and scoring.

A layer of its own, above scoring and report: it calls ingest's decoders, the store's
writer, and scoring directly. `config` is cheap to import (the CLI reads its defaults at
start-up); `app.serve` loads the web stack.
"""
