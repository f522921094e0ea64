"""ADK eval-set files → typed, normalised expectations (and back).

`load_eval_sets` reads `*.evalset.json`, `*.test.json` and the old list format into
`LoadedEvalSet`s of `Case`s; `load_config`/`find_config` read `test_config.json`;
`eval_set_to_dict`/`write_eval_set` write cases back out as an ADK eval set. The
pydantic models of the file formats live in `schema`, `legacy`, `content` and `config`.
"""

from tracegrade.evalset.cases import (
    Case,
    EvalSetFormat,
    ExpectedCall,
    ExpectedTurn,
    IntermediateResponse,
    LoadedEvalSet,
    Scenario,
    SessionSpec,
)
from tracegrade.evalset.config import (
    DEFAULT_CRITERIA,
    EvalConfig,
    find_config,
    load_config,
)
from tracegrade.evalset.discovery import load_eval_sets, parse_selection
from tracegrade.evalset.export import eval_set_to_dict, write_eval_set
from tracegrade.evalset.loader import load_eval_set

__all__ = [
    "DEFAULT_CRITERIA",
    "Case",
    "EvalConfig",
    "EvalSetFormat",
    "ExpectedCall",
    "ExpectedTurn",
    "IntermediateResponse",
    "LoadedEvalSet",
    "Scenario",
    "SessionSpec",
    "eval_set_to_dict",
    "find_config",
    "load_config",
    "load_eval_set",
    "load_eval_sets",
    "parse_selection",
    "write_eval_set",
]
