"""Finding the agent under test, named the way ADK users name it.

`package.module:attr` imports `attr` from the module (attr defaults to `root_agent`);
a folder path loads `agent.py` from it, as `adk eval` does, importing the folder as a
package so its relative imports work.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path
from typing import Any

from google.adk.agents.base_agent import BaseAgent

from tracegrade.errors import AgentLoadError

DEFAULT_ATTRIBUTE = "root_agent"


def load_agent(reference: str) -> BaseAgent:
    module_name, attribute = _split(reference)
    module = _import(module_name, reference)
    agent = getattr(module, attribute, None)
    if agent is None and hasattr(module, "agent"):
        agent = getattr(module.agent, attribute, None)  # a package whose agent.py holds it
    if agent is None:
        raise AgentLoadError(f"agent '{reference}': {module_name} has no attribute '{attribute}'")
    if not isinstance(agent, BaseAgent):
        raise AgentLoadError(
            f"agent '{reference}': {attribute} is a {type(agent).__name__}, not a google-adk agent"
        )
    return agent


def agent_source(reference: str) -> str:
    """The loaded agent's module as `judge_imports` takes it: its file where it has one
    (found from anywhere), else its dotted name."""
    module = sys.modules[_split(reference)[0]]
    file = getattr(module, "__file__", None)
    return str(Path(file).resolve()) if file and file.endswith(".py") else module.__name__


def _split(reference: str) -> tuple[str, str]:
    path = Path(reference)
    if path.is_dir():
        return _package_from_folder(path), DEFAULT_ATTRIBUTE
    if path.suffix == ".py" and path.is_file():
        return _package_from_folder(path.parent), DEFAULT_ATTRIBUTE
    if _looks_like_a_path(reference):
        raise AgentLoadError(
            f"agent '{reference}': no such folder or file (give a folder holding agent.py, "
            "or package.module:attr)"
        )
    module_name, _, attribute = reference.partition(":")
    return module_name, attribute or DEFAULT_ATTRIBUTE


def _looks_like_a_path(reference: str) -> bool:
    """A module reference has no slashes and does not end in .py."""
    return "/" in reference or "\\" in reference or reference.endswith(".py")


def _package_from_folder(folder: Path) -> str:
    folder = folder.resolve()
    if not (folder / "agent.py").is_file() and not (folder / "__init__.py").is_file():
        raise AgentLoadError(f"agent folder '{folder}' has no agent.py")
    parent = str(folder.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    return f"{folder.name}.agent" if (folder / "agent.py").is_file() else folder.name


def _import(module_name: str, reference: str) -> Any:
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # `python -m` semantics for agents in the project
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise AgentLoadError(f"agent '{reference}': no module named '{exc.name}'") from None
        raise AgentLoadError(_import_failed(reference, module_name, exc)) from exc
    except Exception as exc:  # SyntaxError, ImportError, anything the module raised
        raise AgentLoadError(_import_failed(reference, module_name, exc)) from exc


def _import_failed(reference: str, module_name: str, exc: BaseException) -> str:
    """One line: the module, the error, and where in the user's code it was raised."""
    return f"agent '{reference}': importing {module_name} failed: {_where(exc)}"


def _where(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} ({exc.filename}, line {exc.lineno})"
    message = " ".join(f"{type(exc).__name__}: {exc}".split())
    # The innermost frame in the user's own code: not the import machinery, not a library.
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if not _machinery(f.filename)]
    if not own:
        return message
    return f"{message} ({own[-1].filename}, line {own[-1].lineno})"


def _machinery(filename: str) -> bool:
    parts = set(Path(filename).parts)
    return filename.startswith("<frozen") or bool({"importlib", "site-packages"} & parts)


def model_names(agent: BaseAgent) -> list[str]:
    """Every model the agent tree uses, for the run record."""
    names: set[str] = set()
    for current in agent_tree(agent):
        model: Any = getattr(current, "model", None)
        name = model if isinstance(model, str) else getattr(model, "model", None)
        if name:
            names.add(str(name))
    return sorted(names)


def agent_tree(agent: BaseAgent) -> list[BaseAgent]:
    """The agent, its sub-agents and the agents its AgentTools run, depth first."""
    found: list[BaseAgent] = []
    stack = [agent]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(reversed([*current.sub_agents, *_agent_tools(current)]))
    return found


def _agent_tools(agent: BaseAgent) -> list[BaseAgent]:
    tools = getattr(agent, "tools", None) or []
    return [t.agent for t in tools if isinstance(getattr(t, "agent", None), BaseAgent)]
