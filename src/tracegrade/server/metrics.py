"""GET /metrics: what Prometheus scrapes (behind the token, as `authorization: bearer`).

The text is prometheus_client's exposition (OpenMetrics when the scraper asks for it in
Accept) of one collector that reads what serve already keeps: the ingest counters and the
commit latency histogram (server/stats.py), the commit queue's depth, the database file's
size, and, per online rule and metric, the turn scores of the last hour's traffic scorings.

A scrape must stay cheap whatever the store holds: everything but the scores is a few
integers read under a lock; the scores are one aggregate query (queries/report/
metrics_rule_scores.sql), run at most once per `SCORES_TTL_S` and shared by the scrapes in
between.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client import exposition as text_format
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.openmetrics import exposition as openmetrics
from prometheus_client.registry import Collector

from tracegrade._resources import queries_dir
from tracegrade.scoring.selection import window_text
from tracegrade.server.receiver import Receiver
from tracegrade.server.stats import COMMIT_BUCKETS_S

SCORES_WINDOW_S = 3600
"""The scores exposed are those of the traffic scorings made in this many last seconds."""
_WINDOW = window_text(SCORES_WINDOW_S)
SCORES_TTL_S = 30.0
"""The scores query runs at most this often; scrapes in between get its last answer."""

ScoreRows = Callable[[str, Sequence[Any]], list[tuple[Any, ...]] | None]
"""Runs one read-only query with its parameters: its rows, None when it failed."""


class ServeMetrics(Collector):
    def __init__(self, receiver: Receiver, db: str, score_rows: ScoreRows) -> None:
        self._receiver = receiver
        self._db = db
        self._score_rows = score_rows
        self._scores: tuple[float, list[tuple[Any, ...]]] | None = None
        self._lock = threading.Lock()
        self._sql = (queries_dir() / "report" / "metrics_rule_scores.sql").read_text()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    def exposition(self, accept: str) -> tuple[bytes, str]:
        """The body and its content type: OpenMetrics if `accept` names it, else the
        Prometheus text format."""
        if "application/openmetrics-text" in accept:
            body: bytes = openmetrics.generate_latest(self.registry)  # type: ignore[no-untyped-call]  # the module has no annotations
            return body, openmetrics.CONTENT_TYPE_LATEST
        return text_format.generate_latest(self.registry), text_format.CONTENT_TYPE_LATEST

    def collect(self) -> Iterator[Metric]:
        yield from self._ingest()
        yield self._commit_latency()
        yield GaugeMetricFamily(
            "tracegrade_queue_spans",
            "Spans received and waiting for their commit.",
            value=self._receiver.commit.queued_spans,
        )
        yield GaugeMetricFamily(
            "tracegrade_database_bytes",
            "Size of the DuckDB file and its write-ahead log.",
            value=_file_bytes(self._db) + _file_bytes(f"{self._db}.wal"),
        )
        yield from self._rule_scores()

    def _ingest(self) -> Iterator[Metric]:
        stats = self._receiver.stats
        figures = stats.snapshot()
        for name, doc, value in (
            ("spans_stored", "Spans received and committed.", figures.spans_stored),
            ("spans_duplicate", "Spans received again (stored once).", figures.duplicates),
            ("spans_rejected", "Spans refused inside an accepted request.", figures.rejected),
            ("requests", "OTLP export requests answered.", figures.requests),
        ):
            yield CounterMetricFamily(f"tracegrade_ingest_{name}", doc, value=value)
        refused = CounterMetricFamily(
            "tracegrade_ingest_refused_requests",
            "OTLP export requests refused, by HTTP status (gRPC's mapped onto it): 401 no "
            "token, 413 too large, 415 wrong type, 429/503 overloaded, 400 bad spans.",
            labels=["status"],
        )
        for status, count in sorted(stats.refused().items()):
            refused.add_metric([str(status)], count)
        yield refused

    def _commit_latency(self) -> Metric:
        latency = self._receiver.stats.commit_latency()
        cumulative, buckets = 0, []
        for bound, count in zip((*COMMIT_BUCKETS_S, float("inf")), latency.counts, strict=True):
            cumulative += count
            buckets.append(("+Inf" if bound == float("inf") else f"{bound:g}", cumulative))
        return HistogramMetricFamily(
            "tracegrade_commit_seconds",
            "Time the writer took to commit a group of spans.",
            buckets=buckets,
            sum_value=latency.sum_s,
        )

    def _rule_scores(self) -> Iterator[Metric]:
        labels = ["rule", "metric"]
        families = {
            "mean": GaugeMetricFamily(
                "tracegrade_score_mean",
                f"Mean turn score in the traffic scorings of the last {_WINDOW}.",
                labels=labels,
            ),
            "scored": GaugeMetricFamily(
                "tracegrade_score_turns",
                f"Turns scored in the last {_WINDOW}.",
                labels=labels,
            ),
            "breaches": GaugeMetricFamily(
                "tracegrade_score_breaches",
                f"Turns over the metric's bound in the last {_WINDOW}.",
                labels=labels,
            ),
            "errors": GaugeMetricFamily(
                "tracegrade_score_errors",
                f"Turns that errored in the last {_WINDOW}.",
                labels=labels,
            ),
        }
        for rule, metric, mean, scored, breaches, errors in self._cached_scores():
            values = {"mean": mean, "scored": scored, "breaches": breaches, "errors": errors}
            for key, family in families.items():
                if values[key] is not None:
                    family.add_metric([str(rule), str(metric)], float(values[key]))
        yield from families.values()

    def _cached_scores(self) -> list[tuple[Any, ...]]:
        with self._lock:  # one scrape queries; the others wait for its answer, then share it
            now = time.monotonic()
            if self._scores is None or now - self._scores[0] >= SCORES_TTL_S:
                found = self._score_rows(self._sql, [time.time() - SCORES_WINDOW_S])
                # A failed query keeps the last answer (or none) and is tried next scrape.
                if found is not None:
                    self._scores = (now, found)
            return self._scores[1] if self._scores is not None else []


def _file_bytes(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
