"""Which stored eval run is which, and which one is the latest, against forged run spans.

Eval runs are read from `tracegrade.eval_run` spans, and whoever can send OTLP (a
Collector's receivers have no auth) can send one. So:

- runs are ordered by when this store first received their span (`spans.ingested_at`, its
  own clock), never by a time inside the span, which the sender chose;
- with a token (TRACEGRADE_TOKEN), `tracegrade run` signs its run span: an HMAC under the
  token of the span's `tracegrade.*` attributes. A run is *attested* when that signature
  holds under the reader's token, or when its span was written by the in-process exporter
  (the run's own process, holding the file). A run that is not attested is marked, and
  "latest" skips it. A Collector forwarding spans with the token proves nothing about
  who sent them to the Collector: only the signature, made before the span left the run's
  process, does.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracegrade.store.reader import Reader

TOKEN_ENV = "TRACEGRADE_TOKEN"
SIGNATURE = "tracegrade.run_signature"
IN_PROCESS = "exporter"
"""The `spans.source` of the in-process exporter, which writes the file directly."""

_DOMAIN = b"tracegrade eval run v1\n"  # a signature made for anything else never matches


def run_token(given: str | None = None) -> str | None:
    """The token runs are signed and checked with: `given`, else $TRACEGRADE_TOKEN; None
    when neither is set (or empty)."""
    return given or os.environ.get(TOKEN_ENV) or None


def run_signature(attributes: Mapping[str, Any], token: str) -> str:
    """The signature of a run span's `tracegrade.*` attributes (other keys, which a
    Collector may add, are left out; so is the signature itself)."""
    signed = {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in attributes.items()
        if key.startswith("tracegrade.") and key != SIGNATURE
    }
    payload = json.dumps(signed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hmac.new(token.encode(), _DOMAIN + payload.encode(), hashlib.sha256).hexdigest()


def is_attested(attributes: Mapping[str, Any], source: str, token: str) -> bool:
    if source == IN_PROCESS:
        return True
    given = attributes.get(SIGNATURE)
    return isinstance(given, str) and hmac.compare_digest(given, run_signature(attributes, token))


@dataclass(frozen=True)
class RunReceipt:
    run_id: str
    received_us: int
    """When this store first received the run's span (of the attested ones, if any)."""
    attested: bool | None
    """None when no token is set: nothing can be told apart then."""


_RUN_SPANS = """
SELECT attributes->>'tracegrade.run_id' AS run_id, epoch_us({received}) AS received_us{more}
FROM spans
WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_run'
  AND attributes->>'tracegrade.run_id' IS NOT NULL
{rest}
"""
# Without a token the attributes are not needed: only each run's first receipt.
_FIRST_RECEIPTS = _RUN_SPANS.format(received="min(ingested_at)", more="", rest="GROUP BY ALL")
_SIGNED_SPANS = _RUN_SPANS.format(
    received="ingested_at", more=", source, attributes", rest="ORDER BY ingested_at, span_id"
)


def run_receipts(reader: Reader, token: str | None) -> list[RunReceipt]:
    """Every stored run once, newest received first (ties by run id, descending)."""
    if token is None:
        rows = reader.query(_FIRST_RECEIPTS)[1]
        found = [RunReceipt(str(run_id), int(received_us), None) for run_id, received_us in rows]
    else:
        found = list(_attested_receipts(reader, token).values())
    return sorted(found, key=lambda r: (r.received_us, r.run_id), reverse=True)


def _attested_receipts(reader: Reader, token: str) -> dict[str, RunReceipt]:
    """Per run, its first attested span, else its first span (in the order received)."""
    receipts: dict[str, RunReceipt] = {}
    for run_id, received_us, source, attributes in reader.query(_SIGNED_SPANS)[1]:
        known = receipts.get(run_id)
        if known is not None and known.attested:
            continue
        parsed = json.loads(attributes) if isinstance(attributes, str) else attributes
        attested = is_attested(parsed, source, token)
        if known is None or attested:
            receipts[run_id] = RunReceipt(run_id, int(received_us), attested)
    return receipts


def latest_run(reader: Reader, token: str | None) -> str | None:
    """The run received last, among the attested ones when a token is set."""
    for receipt in run_receipts(reader, token):
        if receipt.attested is not False:
            return receipt.run_id
    return None
