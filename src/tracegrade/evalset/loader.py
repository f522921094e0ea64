"""Load one eval-set file of any ADK format into a `LoadedEvalSet`.

The format is detected from the content, in ADK's order: an `EvalSet` object first,
then a list — of old-format cases (`[{name, data}]`, `adk eval`'s fallback) or of query
rows (`*.test.json`, AgentEvaluator). ADK picks the list reader by entry point; we pick
it by what the list holds, so either kind loads from any file name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from tracegrade.errors import EvalSetError
from tracegrade.evalset.cases import Case, EvalSetFormat, LoadedEvalSet
from tracegrade.evalset.diagnostics import CaseLayout, read_json, validation_error
from tracegrade.evalset.legacy import (
    INITIAL_SESSION_FILE,
    InitialSession,
    LegacyEvalCase,
    QueryRow,
    initial_session_from,
    rows_to_eval_case,
)
from tracegrade.evalset.normalise import to_case
from tracegrade.evalset.schema import EvalSet
from tracegrade.evalset.unknown_keys import check_unknown_keys

_EVALSET_LAYOUT = CaseLayout(prefix=("eval_cases",), id_keys=("eval_id", "evalId"))
_LEGACY_LAYOUT = CaseLayout(prefix=(), id_keys=("name",))
_LEGACY_CASES = TypeAdapter(list[LegacyEvalCase])
_QUERY_ROWS = TypeAdapter(list[QueryRow])
_SUFFIXES = (".evalset.json", ".test.json", ".json")
_UNKNOWN = (
    "unknown format: expected an EvalSet object (eval_set_id, eval_cases), a list of "
    "old-format cases (name, data) or a list of test rows (query, expected_tool_use, ...)"
)


def load_eval_set(path: str | Path, ignore_unknown_keys: bool = False) -> LoadedEvalSet:
    """Load one file; raise `EvalSetError` naming file, case and field if it is malformed,
    or naming the keys ADK refuses unless `ignore_unknown_keys` (then they are left out,
    and `warnings` says so)."""
    path = Path(path)
    raw, data = read_json(path, "eval set")
    sha256 = hashlib.sha256(raw).hexdigest()
    kind = detect_format(path, data)
    if kind == "evalset":
        return _read_evalset(path, data, sha256, ignore_unknown_keys)
    return _READERS[kind](path, data, sha256)


def detect_format(path: Path, data: Any) -> EvalSetFormat:
    """Which ADK format `data` (a file's decoded JSON) is in."""
    if isinstance(data, dict) and data.keys() & {"eval_set_id", "eval_cases"}:
        return "evalset"
    if isinstance(data, dict) and data.keys() & {"evalSetId", "evalCases"}:
        raise EvalSetError(
            f"eval set '{path}': the top level must use snake_case keys "
            "(eval_set_id, eval_cases): ADK reads it that way"
        )
    if isinstance(data, list):
        keys = {key for entry in data if isinstance(entry, dict) for key in entry}
        if "query" in keys:
            return "test_rows"
        if keys & {"name", "data"} or not data:
            return "legacy_list"
    raise EvalSetError(f"eval set '{path}': {_UNKNOWN}")


def eval_set_id_from_path(path: Path) -> str:
    """The id of a set whose format has none: the file name without its eval suffix."""
    name = path.name
    suffix = next((s for s in _SUFFIXES if name.endswith(s) and name != s), "")
    return name.removesuffix(suffix) if suffix else path.stem


def _read_evalset(
    path: Path, data: Any, sha256: str, ignore_unknown_keys: bool = False
) -> LoadedEvalSet:
    try:
        model = EvalSet.model_validate(data)
    except ValidationError as exc:
        raise validation_error(f"eval set '{path}'", exc, data, _EVALSET_LAYOUT) from None
    warnings = check_unknown_keys(path, model, ignore_unknown_keys)
    cases = [to_case(model.eval_set_id, case) for case in model.eval_cases]
    _check_unique(path, cases, "eval_cases")
    return LoadedEvalSet(
        path,
        model.eval_set_id,
        sha256,
        "evalset",
        tuple(cases),
        model.name,
        model.description,
        warnings=warnings,
    )


def _read_legacy_list(path: Path, data: Any, sha256: str) -> LoadedEvalSet:
    try:
        legacy = _LEGACY_CASES.validate_python(data)
    except ValidationError as exc:
        raise validation_error(f"eval set '{path}'", exc, data, _LEGACY_LAYOUT) from None
    eval_set_id = eval_set_id_from_path(path)
    cases = [to_case(eval_set_id, case.to_eval_case()) for case in legacy]
    _check_unique(path, cases, "")
    return LoadedEvalSet(path, eval_set_id, sha256, "legacy_list", tuple(cases))


def _read_test_rows(path: Path, data: Any, sha256: str) -> LoadedEvalSet:
    try:
        rows = _QUERY_ROWS.validate_python(data)
    except ValidationError as exc:
        raise validation_error(f"eval set '{path}'", exc, data) from None
    # AgentEvaluator takes the session file as an argument; ADK's own suites keep it
    # beside the test files under this name, so that is where we look.
    candidate = path.parent / INITIAL_SESSION_FILE
    session_file = candidate if candidate.is_file() else None
    eval_set_id = eval_set_id_from_path(path)
    case = to_case(eval_set_id, rows_to_eval_case(eval_set_id, rows, _session(session_file)))
    return LoadedEvalSet(path, eval_set_id, sha256, "test_rows", (case,), session_file=session_file)


def _session(session_file: Path | None) -> InitialSession | None:
    if session_file is None:
        return None
    _, data = read_json(session_file, "initial session")
    try:
        return initial_session_from(data)
    except ValidationError as exc:
        raise validation_error(f"initial session '{session_file}'", exc, data) from None


def _check_unique(path: Path, cases: Sequence[Case], list_name: str) -> None:
    first_seen: dict[str, int] = {}
    for index, case in enumerate(cases):
        if case.case_id in first_seen:
            where = f"{list_name}[{index}] repeats {list_name}[{first_seen[case.case_id]}]"
            raise EvalSetError(
                f"eval set '{path}' case '{case.case_id}': duplicate case id: {where}"
            )
        first_seen[case.case_id] = index


_READERS: dict[EvalSetFormat, Callable[[Path, Any, str], LoadedEvalSet]] = {
    "evalset": _read_evalset,
    "legacy_list": _read_legacy_list,
    "test_rows": _read_test_rows,
}
