"""The span writer: each span stored once, whatever mix of new and re-sent spans a batch holds."""

from __future__ import annotations

from tracegrade.store import SpanWriter
from tracegrade.store.rows import SpanRow


def _row(n: int, name: str = "call_llm") -> SpanRow:
    return SpanRow(
        trace_id=f"{n:032x}",
        span_id=f"{n:016x}",
        parent_span_id=None,
        name=name,
        kind="INTERNAL",
        start_ns=n,
        end_ns=n + 1,
        status_code="UNSET",
        status_message=None,
        service_name="svc",
        scope_name=None,
        scope_version=None,
        attributes="{}",
        resource="{}",
        events="[]",
        links="[]",
        source="test",
    )


def _stored(writer: SpanWriter) -> list[tuple[str, str]]:
    rows = writer.connection.execute("SELECT span_id, name FROM spans ORDER BY span_id")
    return [(r[0], r[1]) for r in rows.fetchall()]


def test_a_batch_of_new_and_stored_spans_stores_only_the_new(writer: SpanWriter) -> None:
    first = writer.write([_row(n) for n in range(5)])
    # Two spans stored already (re-sent with another name, which must not replace theirs),
    # three new, one of them twice in the batch.
    mixed = [_row(0, "resent"), _row(1, "resent"), _row(5), _row(6), _row(7), _row(7)]
    second = writer.write(mixed)
    assert (first.stored, first.duplicates) == (5, 0)
    assert (second.stored, second.duplicates) == (3, 3)
    assert _stored(writer) == [(f"{n:016x}", "call_llm") for n in range(8)]


def test_a_conflicting_batch_leaves_the_writer_usable(writer: SpanWriter) -> None:
    writer.write([_row(1)])
    assert writer.write([_row(1)]).duplicates == 1
    later = writer.write([_row(2), _row(3)])
    assert (later.stored, later.duplicates) == (2, 0)
    assert len(_stored(writer)) == 3
