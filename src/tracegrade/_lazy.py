"""Package names that load on first use, so importing a package costs only what is used."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_attributes(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` (PEP 562) that imports `names[name]`, the module defining
    `name`, when `package.name` is first read."""

    def load(name: str) -> Any:
        if name in names:
            return getattr(import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return load
