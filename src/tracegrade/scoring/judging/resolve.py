"""Which model judges: named as ADK names it, or a `BaseLlm` of the user's own.

ADK's judges build their model with `LLMRegistry.resolve(name)(model=name)`: Gemini names,
`provider/model` names LiteLlm knows (`openai/gpt-4o-mini`, with `litellm` installed), and
any class a user registered with `LLMRegistry.register`. tracegrade resolves the same way,
and also takes `package.module:attr` naming a `BaseLlm` instance. Modules that register
model classes are imported first: those named in `tracegrade.judge_imports` (dotted names,
or `.py` files relative to the criteria file).

A server scoring what a request asks (`POST /v1/score`) must not import what the request
names: inside `imports_refused`, a `package.module:attr` judge or a `judge_imports` entry
is taken only from modules the process already imported (`serve --judge-import`), a
`.py` file by the path it was imported from.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from google.adk.models.base_llm import BaseLlm
from google.adk.models.registry import LLMRegistry

from tracegrade.errors import ConfigError

_ATTRIBUTE_REFERENCE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
_REFUSING: ContextVar[str | None] = ContextVar("tracegrade_judge_imports_refused", default=None)


@contextmanager
def imports_refused(advice: str) -> Iterator[None]:
    """Within it (this thread), judging imports no module: only modules already imported
    are looked up; any other is a `ConfigError` ending with `advice`."""
    token = _REFUSING.set(advice)
    try:
        yield
    finally:
        _REFUSING.reset(token)


def _module(name: str, what: str) -> ModuleType:
    """`import name`, or, where imports are refused, the module already imported."""
    advice = _REFUSING.get()
    if advice is None:
        return importlib.import_module(name)
    module = sys.modules.get(name)
    if module is None:
        raise ConfigError(f"{what}: '{name}' is not imported, and {advice}")
    return module


@dataclass(frozen=True)
class Judge:
    """A judge model ready to call."""

    name: str
    """As configured: the cache key and what reports show."""
    llm: BaseLlm

    @property
    def model(self) -> str:
        """The model's own name: what prices apply to."""
        return str(self.llm.model or self.name)


def resolve_judge(name: str) -> Judge:
    """The judge `name` names; a `ConfigError` saying how to make it known otherwise."""
    if _ATTRIBUTE_REFERENCE.match(name):
        llm = _attribute(name)
        if llm is not None:
            return Judge(name, llm)
    try:
        return Judge(name, LLMRegistry.resolve(name)(model=name))
    except (ValueError, ImportError) as exc:
        raise ConfigError(
            f"judge model '{name}': {_first_line(exc)}. Use a name ADK's LLMRegistry knows "
            "(gemini-..., provider/model with litellm installed), register your BaseLlm class "
            "in a module listed in tracegrade.judge_imports (or given to `tracegrade score "
            "--judge-import`, e.g. the agent's module), or give package.module:attr of "
            "a BaseLlm instance"
        ) from None


def _attribute(reference: str) -> BaseLlm | None:
    module_name, _, attribute = reference.partition(":")
    try:
        module = _module(module_name, f"judge model '{reference}'")
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            return None  # not a module: perhaps an ADK prefix form; the registry decides
        raise
    value = getattr(module, attribute, None)
    if value is None:
        raise ConfigError(f"judge model '{reference}': {module_name} has no '{attribute}'")
    if not isinstance(value, BaseLlm):
        raise ConfigError(
            f"judge model '{reference}': {attribute} is a {type(value).__name__}, "
            "not a google-adk BaseLlm instance"
        )
    return value


def import_judge_modules(references: Iterable[str]) -> list[ModuleType]:
    """Import each module (dotted name or absolute `.py` path) so its models register."""
    return [_import(reference) for reference in references]


def _import(reference: str) -> ModuleType:
    try:
        if reference.endswith(".py") and _REFUSING.get() is None:
            return _import_file(Path(reference))
        if reference.endswith(".py"):
            return _imported_file(Path(reference))
        return _module(reference, "tracegrade.judge_imports")
    except (ImportError, OSError) as exc:
        raise ConfigError(f"tracegrade.judge_imports: cannot import '{reference}': {exc}") from None


def _imported_file(path: Path) -> ModuleType:
    """Where imports are refused, the module already imported from `path` (by
    `serve --judge-import`, under whatever name)."""
    wanted = path.resolve()
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve() == wanted:
            return module
    raise ConfigError(f"tracegrade.judge_imports: '{path}' is not imported, and {_REFUSING.get()}")


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise FileNotFoundError(f"no file {path}")
    path = path.resolve()
    root = path.parent
    while (root / "__init__.py").is_file():
        root = root.parent
    if root != path.parent:
        # As a module of its package (the folders holding __init__.py), the way agents are
        # loaded: an agent that imports the same module gets the same one, and its classes
        # register once.
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        parts = path.relative_to(root).with_suffix("").parts
        return importlib.import_module(".".join(parts))
    name = f"tracegrade_judge_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].rstrip(".")
