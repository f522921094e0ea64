"""`serve --rules`: score traffic as it arrives, on a thread and cursor of its own.

Every `poll_s` the thread takes each rule in turn: it reads the horizon (now less the
quiet period) under the writer's commit lock, claims the server's one scoring slot (a
POST /v1/score in progress makes it wait for the next poll; a POST meanwhile is told to
retry), and runs one pass (scoring/online.py) with what is left of the rule's daily judge
budget. Shutdown and a memory emergency interrupt a pass; its transaction is rolled back
and the next start scores those turns. Spans come first: nothing is scored while ingest is
refused for memory, and a pass waits while spans wait for their commit (senders are
sending faster than the writer commits), up to MAX_DEFER_S since the rule's last pass.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import duckdb

from tracegrade.errors import ConfigError, TracegradeError
from tracegrade.scoring.judging.settings import JudgeSettings
from tracegrade.scoring.metrics import MetricSpec, available_metrics
from tracegrade.scoring.online import (
    BUDGET_SPENT,
    PassResult,
    activate,
    check_where,
    day_spend,
    horizon_us,
    score_pass,
)
from tracegrade.scoring.rules import Rule, Rules
from tracegrade.server.cancel import Cancellation
from tracegrade.server.scoring import ScoringRequests
from tracegrade.store import SpanWriter
from tracegrade.store.archive_location import layer_archive

logger = logging.getLogger("tracegrade.serve")

MAX_DEFER_S = 30.0
"""The longest a rule's pass waits for ingest to catch up: under a flood scoring still
runs, in fewer, larger passes, rather than falling behind for as long as the flood lasts."""
_LAGS_KEPT = 10_000
"""Lags kept for /health's percentiles: the latest turns scored."""


@dataclass
class RuleStatus:
    """What /health shows of a rule."""

    rule: Rule
    turns_scored: int = 0
    passes: int = 0
    last_pass_at: float | None = None
    last_pass_monotonic: float = field(default_factory=time.monotonic)
    budget_spent: bool = False
    error: str | None = None
    lags_s: list[float] = field(default_factory=list)

    def document(self) -> dict[str, Any]:
        lags = sorted(self.lags_s)

        def percentile(share: float) -> float | None:
            return round(lags[round(share * (len(lags) - 1))], 3) if lags else None

        return {
            "rule": self.rule.name,
            "rule_version": self.rule.version,
            "turns_scored": self.turns_scored,
            "passes": self.passes,
            "lag_p50_s": percentile(0.5),
            "lag_p95_s": percentile(0.95),
            "lag_max_s": percentile(1.0),
            "judge_budget": BUDGET_SPENT if self.budget_spent else "ok",
            "error": self.error,
        }


class OnlineScoring:
    def __init__(
        self,
        writer: SpanWriter,
        rules: Rules,
        scoring: ScoringRequests,
        refusing: Callable[[], object | None],
        backlog: Callable[[], int],
    ) -> None:
        self._writer = writer
        self._rules = rules
        self._scoring = scoring
        self._refusing = refusing  # why ingest is refused, if it is
        self._backlog = backlog  # spans waiting for their commit
        self._specs: dict[str, MetricSpec] = available_metrics()
        self._status = {rule.name: RuleStatus(rule) for rule in rules.rules}
        self._stop = threading.Event()
        self._running: Cancellation | None = None
        self._thread = threading.Thread(target=self._run, name="tracegrade-online", daemon=True)

    def start(self) -> None:
        cursor = self._writer.connection.cursor()
        try:
            for rule in self._rules.rules:
                self._check(cursor, rule)
                activate(cursor, rule)
        finally:
            cursor.close()
        names = ", ".join(f"{r.name} ({r.version})" for r in self._rules.rules)
        logger.info(
            "online scoring: rules %s; a turn is scored %g s after its last span", names,
            self._rules.quiet_s,
        )  # fmt: skip
        self._thread.start()

    def _check(self, cursor: duckdb.DuckDBPyConnection, rule: Rule) -> None:
        try:
            check_where(cursor, rule)
        except ConfigError as exc:
            raise ConfigError(f"rules file '{self._rules.path}' {exc}") from None

    def stop(self, timeout: float) -> None:
        """Stop at once: a pass in progress is interrupted and rolled back."""
        self._stop.set()
        self.cancel("the server is stopping")
        if self._thread.is_alive():
            self._thread.join(timeout)

    def cancel(self, why: str) -> None:
        running = self._running
        if running is not None:
            running.cancel(why)

    def status(self) -> list[dict[str, Any]]:
        return [status.document() for status in self._status.values()]

    def _run(self) -> None:
        cursor = self._writer.connection.cursor()
        layer_archive(cursor)
        try:
            while not self._stop.wait(self._rules.poll_s):
                for rule in self._rules.rules:
                    if self._stop.is_set() or self._refusing() is not None:
                        break
                    if not self._deferred(self._status[rule.name]):
                        self._pass(cursor, rule)
        finally:
            cursor.close()

    def _deferred(self, status: RuleStatus) -> bool:
        """Whether ingest is behind, and the rule's last pass recent enough to wait."""
        if not self._backlog():
            return False
        return time.monotonic() - status.last_pass_monotonic < MAX_DEFER_S

    def _pass(self, cursor: duckdb.DuckDBPyConnection, rule: Rule) -> None:
        status = self._status[rule.name]
        with self._writer.commit_lock:  # every span stored by the horizon is visible
            horizon = horizon_us(cursor, self._rules.quiet_s)
        if not self._scoring.try_begin():
            return  # a POST /v1/score holds the slot: the next poll
        cancel = Cancellation()
        self._running = cancel
        cancel.attach(cursor)
        try:
            judging = self._judging(cursor, rule, status)
            done = score_pass(
                cursor, rule, horizon, self._specs, judging, stop=lambda: cancel.reason
            )
        except (TracegradeError, duckdb.Error) as exc:
            if cancel.reason is None:
                status.error = str(exc).splitlines()[0]
                logger.error(
                    "online rule '%s': the pass failed, retried next poll: %s", rule.name, exc
                )
            return
        finally:
            cancel.attach(None)
            self._running = None
            self._scoring.release()
        self._record(status, done)

    def _judging(
        self, cursor: duckdb.DuckDBPyConnection, rule: Rule, status: RuleStatus
    ) -> JudgeSettings:
        """The rule's judges may spend what is left of today's budget."""
        usd, calls = day_spend(cursor, rule.name).left(rule)
        spent = rule.judged and (usd == 0 or calls == 0)
        if spent and not status.budget_spent:
            logger.warning(
                "online rule '%s': %s (%s): judge calls stop until 00:00 UTC; its judged "
                "metrics are recorded as not evaluated", rule.name, BUDGET_SPENT, _limits(rule),
            )  # fmt: skip
        status.budget_spent = spent
        return JudgeSettings(budget_usd=usd, max_calls=calls)

    def _record(self, status: RuleStatus, done: PassResult) -> None:
        status.passes += 1
        status.last_pass_at = time.time()
        status.last_pass_monotonic = time.monotonic()
        status.error = None
        if not done.turns:
            return
        status.turns_scored += done.turns
        status.lags_s = (status.lags_s + done.lags_s)[-_LAGS_KEPT:]
        if done.unjudged and not status.budget_spent:
            status.budget_spent = True
            logger.warning(
                "online rule '%s': %s (%s) during a pass: %d judge calls not made",
                status.rule.name, BUDGET_SPENT, _limits(status.rule), done.unjudged,
            )  # fmt: skip
        logger.debug(
            "online rule '%s': scored %d turns (scoring %s)", status.rule.name, done.turns,
            done.scoring_id,
        )  # fmt: skip


def _limits(rule: Rule) -> str:
    budget = rule.budget
    parts = []
    if budget.usd_per_day is not None:
        parts.append(f"${budget.usd_per_day:g} a day")
    if budget.calls_per_day is not None:
        parts.append(f"{budget.calls_per_day} calls a day")
    return ", ".join(parts)
