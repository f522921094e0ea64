"""Turn what a user names on the command line into loaded eval sets.

Each path is a file or a directory; a file may carry `adk eval`'s case selection,
`path/to/set.evalset.json:case_a,case_b`. A directory stands for every `*.evalset.json`
and `*.test.json` below it, in path order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from tracegrade.errors import EvalSetError
from tracegrade.evalset.cases import LoadedEvalSet
from tracegrade.evalset.loader import load_eval_set

EVAL_FILE_SUFFIXES = (".evalset.json", ".test.json")

Selection = frozenset[str] | None
"""The case ids chosen from a file, or None for all of them."""


def load_eval_sets(
    paths: Sequence[str | Path], ignore_unknown_keys: bool = False
) -> list[LoadedEvalSet]:
    """Load every eval set the paths name, keeping only selected cases where given."""
    chosen = _files_with_selections(paths)
    loaded = [
        _select(load_eval_set(file, ignore_unknown_keys), selection)
        for file, selection in chosen.items()
    ]
    _check_unique_ids(loaded)
    return loaded


def parse_selection(spec: str | Path) -> tuple[Path, Selection]:
    """Split `file.json:case_a,case_b` into the path and the chosen case ids.

    Mirrors `adk eval`: the first colon (after a Windows drive prefix) starts the list,
    and anything after a second colon is ignored. A path that exists as written is
    taken whole, so a file name containing a colon still loads.
    """
    if isinstance(spec, Path) or Path(spec).exists():
        return Path(spec), None
    letter, colon_then_slash = spec[:1], spec[1:3]
    drive = letter.isascii() and letter.isalpha() and colon_then_slash in (":\\", ":/")
    colon = spec.find(":", 3 if drive else 0)
    if colon == -1:
        return Path(spec), None
    ids = [case_id.strip() for case_id in spec[colon + 1 :].split(":")[0].split(",")]
    # As in `adk eval`, an empty list (`file.json:`) means every case.
    return Path(spec[:colon]), frozenset(case_id for case_id in ids if case_id) or None


def eval_files_in(directory: Path) -> list[Path]:
    """The eval-set files below a directory, sorted by path."""
    found = [p for p in directory.rglob("*") if p.name.endswith(EVAL_FILE_SUFFIXES)]
    return sorted(p for p in found if p.is_file())


def _files_with_selections(paths: Sequence[str | Path]) -> dict[Path, Selection]:
    # Keyed by resolved path so a file named twice (directly and via its directory, or
    # with two selections) loads once, its selections merged.
    chosen: dict[Path, tuple[Path, Selection]] = {}
    for spec in paths:
        path, selection = parse_selection(spec)
        for file in _expand(path, selection):
            first, previous = chosen.get(file.resolve(), (file, frozenset()))
            chosen[file.resolve()] = (first, _merge(previous, selection))
    return dict(chosen.values())


def _merge(previous: Selection, new: Selection) -> Selection:
    return None if previous is None or new is None else previous | new


def _expand(path: Path, selection: Selection) -> list[Path]:
    if not path.is_dir():
        return [path]  # a missing file is reported by the loader
    if selection is not None:
        raise EvalSetError(f"eval set '{path}': a case selection needs a file, not a directory")
    files = eval_files_in(path)
    if not files:
        raise EvalSetError(f"eval set '{path}': no *.evalset.json or *.test.json files in it")
    return files


def _select(loaded: LoadedEvalSet, selection: Selection) -> LoadedEvalSet:
    if selection is None:
        return loaded
    known = {case.case_id for case in loaded.cases}
    missing = sorted(selection - known)
    if missing:
        have = ", ".join(sorted(known)) or "none"
        raise EvalSetError(f"eval set '{loaded.path}': no case '{missing[0]}' (cases: {have})")
    cases = tuple(case for case in loaded.cases if case.case_id in selection)
    return dataclasses.replace(loaded, cases=cases)


def _check_unique_ids(loaded: Sequence[LoadedEvalSet]) -> None:
    # Spans carry the eval set id and case id, so two sets sharing an id would mix results.
    seen: dict[str, Path] = {}
    for eval_set in loaded:
        other = seen.setdefault(eval_set.eval_set_id, eval_set.path)
        if other != eval_set.path:
            raise EvalSetError(
                f"eval sets '{other}' and '{eval_set.path}' share the id "
                f"'{eval_set.eval_set_id}': eval set ids must be unique in one run"
            )
