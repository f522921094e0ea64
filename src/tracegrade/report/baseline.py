"""The run a diff is taken against: `--baseline previous|TAG|RUN_ID|report.json`.

- `previous`: the newest stored run, received before the run checked, of the same agent
  over the same eval sets (by their ids);
- a run id, as `tracegrade runs` lists them;
- a tag given with `tracegrade run --tag`: the newest run carrying it;
- a file ending in `.json`: the JSON report `tracegrade run --json` wrote (say main's last
  CI run, kept as an artifact), so a job on a fresh machine diffs against main without
  its database.

A baseline is resolved once, before anything is spent on it: `tracegrade run` does it before
its first case, so a mistyped one costs nothing. A stored run and a report file both become
a `RunReport`, the one thing `diff_reports` compares, so every diff is the same diff.
"Newest" is what `tracegrade runs` lists first: received last by this database, and with
a token set, signed under it (an unsigned run may be forged, so it is never picked by
tag or as `previous`; by id it may still be named).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tracegrade.errors import closest
from tracegrade.report.diff.build import DiffTolerances, RunDiff, diff_reports
from tracegrade.report.models import RunReport
from tracegrade.report.queries import ReportError, find_scoring
from tracegrade.report.run.build import build_report
from tracegrade.report.values import as_dict, as_list
from tracegrade.store.reader import Reader, records
from tracegrade.store.run_identity import run_receipts, run_token

PREVIOUS = "previous"
REPORT_SUFFIX = ".json"
_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+@-]{0,99}")


class BaselineError(ReportError):
    """The baseline named is not a scored run, a tag, or a readable report file."""


@dataclass(frozen=True)
class Subject:
    """What `previous` matches: a run's agent reference and its eval sets' ids."""

    agent: str | None
    eval_set_ids: frozenset[str]

    @classmethod
    def of_report(cls, report: RunReport) -> Subject:
        return cls(report.run.agent, frozenset(s.eval_set_id for s in report.run.eval_sets))

    @classmethod
    def of_eval_sets(cls, agent: str, eval_sets: Sequence[str]) -> Subject:
        """A run about to start: its eval sets are read for their ids (the run reads them
        again, as asked; keys ADK refuses are left out here, where only ids matter)."""
        from tracegrade.evalset import load_eval_sets

        loaded = load_eval_sets(eval_sets, ignore_unknown_keys=True)
        return cls(agent, frozenset(s.eval_set_id for s in loaded))

    def describe(self) -> str:
        sets = ", ".join(sorted(self.eval_set_ids)) or "no eval set"
        return f"{self.agent or 'an unnamed agent'} over {sets}"


@dataclass(frozen=True)
class Baseline:
    """A resolved baseline: a stored run (`run_id`), or the report read from `file`."""

    given: str
    run_id: str
    file: Path | None = None
    report: RunReport | None = None

    def base_report(self, reader: Reader | None) -> RunReport:
        """The report the diff compares against: the file's, or the run's latest scoring
        (`reader` may be None only for a file)."""
        if self.report is not None:
            return self.report
        if reader is None:
            raise BaselineError(f"run '{self.run_id}': no database to read it from")
        return build_report(reader, run_id=self.run_id)

    def diff(
        self, reader: Reader, new_run_id: str, tolerances: DiffTolerances | None = None
    ) -> RunDiff:
        """The one diff model, against the new run's latest scoring."""
        new = build_report(reader, run_id=new_run_id)
        return diff_reports(self.base_report(reader), new, tolerances)


def is_report_file(given: str) -> bool:
    """A baseline ending in `.json` names a report file (a tag never does)."""
    return given.lower().endswith(REPORT_SUFFIX)


def tag_problem(tag: str) -> str | None:
    """Why `tag` cannot be a run's tag, or None when it can."""
    if tag == PREVIOUS:
        return f"'{PREVIOUS}' is what `--baseline {PREVIOUS}` means; choose another name"
    if is_report_file(tag):
        return f"a name ending in {REPORT_SUFFIX} would be read as a report file by --baseline"
    if not _TAG.fullmatch(tag):
        return (
            "a tag is 1 to 100 letters, digits and . _ / + @ -, starting with a letter or "
            "digit (e.g. main, v1.2, a git commit)"
        )
    return None


def resolve_baseline(
    reader: Reader | None,
    given: str,
    subject: Subject | None = None,
    before: str | None = None,
    option: str = "--baseline",
    files: bool = True,
) -> Baseline:
    """The baseline `given` names. `subject`: what `previous` matches; `before`: the run
    being checked, when stored (`previous` is then received before it, and never it).
    `option` names where it was given, in errors; `files=False` refuses report files (a
    web page's query must not read the server's files). `reader` may be None for a file."""
    if is_report_file(given):
        if not files:
            raise BaselineError(f"{option} {given}: a report file is not accepted here")
        report = read_report_file(Path(given), option)
        return Baseline(given, report.run.run_id, Path(given), report)
    if reader is None:
        raise BaselineError(f"{option} {given}: no database to find it in")
    runs = _stored_runs(reader)
    if given == PREVIOUS:
        run_id = _previous(runs, subject, before, option)
    elif given in {run["run_id"] for run in runs}:
        run_id = given
    else:
        run_id = _tagged(runs, given, option)
    find_scoring(reader, None, run_id)  # it must be scored: "score it with ..." if not
    return Baseline(given, run_id)


def baseline_of_run(
    reader: Reader, given: str, run_id: str, option: str = "--baseline", files: bool = True
) -> Baseline:
    """The baseline of a stored run (`report`, the live page): `previous` is the last run
    of its agent and eval sets received before it."""
    subject = subject_of(reader, run_id) if given == PREVIOUS else None
    return resolve_baseline(reader, given, subject, before=run_id, option=option, files=files)


def diff_named(
    reader: Reader | None, base: str, new: str, tolerances: DiffTolerances | None = None
) -> RunDiff:
    """`tracegrade diff BASE NEW`, each named as `--baseline` takes it (NEW not `previous`);
    `reader` may be None when both are report files."""
    if new == PREVIOUS:
        raise BaselineError("NEW previous: `previous` is a baseline; name the run to check")
    checked = resolve_baseline(reader, new, option="NEW")
    if checked.report is None and reader is not None:  # stored: `previous` is received before it
        against = baseline_of_run(reader, base, checked.run_id, option="BASE")
    else:
        subject = Subject.of_report(checked.report) if checked.report else None
        against = resolve_baseline(reader, base, subject, option="BASE")
    return diff_reports(against.base_report(reader), checked.base_report(reader), tolerances)


def subject_of(reader: Reader, run_id: str) -> Subject:
    """What `previous` matches for a stored run."""
    for run in _stored_runs(reader):
        if run["run_id"] == run_id:
            return _subject(run)
    raise BaselineError(f"no eval run '{run_id}': `tracegrade runs` lists the stored runs")


def read_report_file(path: Path, option: str = "--baseline") -> RunReport:
    """A JSON report file as `to_json` wrote it; one line naming the file and the fix if not."""
    again = "write it with `tracegrade run --json FILE` (or `tracegrade report RUN --json FILE`)"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BaselineError(
            f"{option} {path}: no such file; give the report main's CI run wrote with "
            "`tracegrade run --json FILE` (kept as an artifact), or a run id or tag"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{option} {path}: cannot be read ({_why(exc)}); {again}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{option} {path}: not JSON (line {exc.lineno}: {exc.msg}); {again}"
        ) from None
    if not isinstance(document, dict) or not {"run", "scoring", "cases"} <= document.keys():
        raise BaselineError(
            f"{option} {path}: not a run report (no run, scoring and cases: a `diff --json` "
            f"or `runs --json` output?); {again}"
        )
    try:
        return RunReport.model_validate(document)
    except ValidationError as exc:
        raise BaselineError(_unreadable_report(path, option, document, exc)) from None


def _unreadable_report(
    path: Path, option: str, document: dict[str, Any], exc: ValidationError
) -> str:
    from tracegrade import __version__

    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the report"
    problem = f"{where}: {first['msg'].lower()}"
    wrote = as_dict(document.get("scoring")).get("tracegrade_version")
    if isinstance(wrote, str) and wrote != __version__:
        return (
            f"{option} {path}: written by tracegrade {wrote}, which this tracegrade "
            f"({__version__}) cannot read ({problem}); write it again with this version "
            "(`tracegrade report RUN --json FILE` where the run is stored, or rerun main)"
        )
    return f"{option} {path}: not a valid run report ({problem}); write it again with " + (
        "`tracegrade run --json FILE`"
    )


def _why(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


_RUNS = """
SELECT run_id, agent, eval_sets, tags
FROM eval_runs
QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY received_at, started_at) = 1
"""


def _stored_runs(reader: Reader) -> list[dict[str, Any]]:
    """Every stored run once, newest received first, each with `attested` (False: not
    signed under the token that is set; None: no token)."""
    rows = {str(row["run_id"]): row for row in records(reader, _RUNS)}
    return [
        {**rows[r.run_id], "attested": r.attested}
        for r in run_receipts(reader, run_token())
        if r.run_id in rows
    ]


def _subject(run: dict[str, Any]) -> Subject:
    sets = as_list(run["eval_sets"])
    ids = frozenset(str(as_dict(s).get("eval_set_id")) for s in sets)
    return Subject(agent=run["agent"], eval_set_ids=ids)


def _tags(run: dict[str, Any]) -> Sequence[str]:
    return [str(tag) for tag in as_list(run["tags"]) if tag is not None]


def _previous(
    runs: list[dict[str, Any]], subject: Subject | None, before: str | None, option: str
) -> str:
    if subject is None:
        raise BaselineError(f"{option} {PREVIOUS}: there is no run here to find the one before")
    earlier = runs
    if before is not None:  # newest first: the runs after `before` in the list came earlier
        ids = [run["run_id"] for run in runs]
        earlier = runs[ids.index(before) + 1 :] if before in ids else runs
    for run in earlier:
        if run["attested"] is not False and _subject(run) == subject:
            return str(run["run_id"])
    raise BaselineError(
        f"{option} {PREVIOUS}: no earlier run of {subject.describe()} is stored (a first "
        "run has none); give a run id, a tag or a report file"
    )


def _tagged(runs: list[dict[str, Any]], tag: str, option: str) -> str:
    for run in runs:
        if run["attested"] is not False and tag in _tags(run):
            return str(run["run_id"])
    names = [*dict.fromkeys(t for run in runs for t in _tags(run)), *(r["run_id"] for r in runs)]
    near = closest(tag, names)
    if near is not None:
        hint = f"did you mean {near}?"
    elif not runs:
        hint = "no eval run is stored yet"
    else:
        hint = "`tracegrade runs` lists the stored runs and their tags"
    if any(tag in _tags(run) for run in runs):  # carried only by runs not signed: forged?
        hint = "only runs not signed under this token carry it (`tracegrade runs` marks them)"
    raise BaselineError(f"{option} '{tag}': no eval run or tag of that name; {hint}")
