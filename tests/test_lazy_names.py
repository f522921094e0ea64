"""The packages whose names load on first use (`tracegrade._lazy`) list each name twice: in
`_LAZY` (where it is found at runtime) and in `__all__`. Both lists stay the same, and each
name is found where `_LAZY` says."""

from __future__ import annotations

from importlib import import_module

import pytest

PACKAGES = [
    "tracegrade",
    "tracegrade.harness",
    "tracegrade.report",
    "tracegrade.scoring",
    "tracegrade.store",
]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_loads_from_where_the_package_says(package: str) -> None:
    module = import_module(package)
    lazy: dict[str, str] = module._LAZY
    assert sorted(lazy) == sorted(module.__all__)
    for name, source in lazy.items():
        assert getattr(module, name) is getattr(import_module(source), name), name
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'nope'"):
        module.nope  # noqa: B018 — the lookup is what is tested
