"""The image installs from requirements.lock: every package pinned with its hashes, pip told
to require them, and the lock covering what pyproject.toml asks for at run and build time.

The lock is compiled for the image's Python on Linux x86_64 (docs/collector.md says
how to refresh it); pip itself refuses, at build time, a lock that misses a dependency of a
locked package. These checks catch what pip cannot: a pyproject.toml changed without the
lock, and a Dockerfile that stops using it.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from .test_compose import dockerignore_excludes

if TYPE_CHECKING:
    from .conftest import Dockerfile

LOCK = "requirements.lock"
PINNED = re.compile(r"^([A-Za-z0-9._-]+)==([^\s\\;]+)((?:\s*\\?\s*--hash=sha256:[0-9a-f]{64})+)")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def locked(text: str) -> dict[str, tuple[Version, int]]:
    """Each locked package: its version and how many hashes it carries. A requirement line
    that is not `name==version` followed by hashes fails the test."""
    found: dict[str, tuple[Version, int]] = {}
    for entry in re.sub(r"\\\n", " ", text).splitlines():
        entry = entry.split(" #", 1)[0].strip()
        if not entry or entry.startswith("#"):
            continue
        match = PINNED.match(entry)
        assert match, f"{LOCK}: not pinned with hashes: {entry}"
        name, version, hashes = match.groups()
        found[canonicalize_name(name)] = (Version(version), len(HASH.findall(hashes)))
    return found


@pytest.fixture(scope="module")
def lock(repo_root: Path) -> dict[str, tuple[Version, int]]:
    return locked((repo_root / LOCK).read_text())


def test_the_image_installs_the_lock_with_hashes_before_the_package(
    dockerfile: Dockerfile, repo_root: Path
) -> None:
    runs = dockerfile.all("RUN")
    installs = [
        (i, cmd.strip())
        for i, run in enumerate(runs)
        for cmd in run.split("&&")
        if "pip install" in cmd
    ]
    assert installs, "the Dockerfile installs nothing with pip"
    first = installs[0][1].split()
    assert "--require-hashes" in first
    assert first[first.index("-r") + 1] == LOCK
    rest = [cmd.split() for _, cmd in installs[1:]]
    assert rest, "the package is never installed after the lock"
    assert all("--no-deps" in cmd for cmd in rest), "only the lock may bring dependencies"
    copied = [src for args in dockerfile.all("COPY") for src in args.split()[:-1]]
    assert LOCK in copied
    ignore = (repo_root / ".dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in ignore if line.strip() and not line.startswith("#")]
    assert not dockerignore_excludes(patterns, LOCK), f".dockerignore drops {LOCK}"


def test_every_locked_package_has_a_hash(lock: dict[str, tuple[Version, int]]) -> None:
    assert lock
    assert all(count >= 1 for _, count in lock.values())


def test_the_lock_covers_pyproject_runtime_and_build_requirements(
    lock: dict[str, tuple[Version, int]], repo_root: Path
) -> None:
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())
    wanted = [*project["project"]["dependencies"], *project["build-system"]["requires"]]
    for text in wanted:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{LOCK} lacks {text!r}: refresh it (docs/collector.md)"
        version = lock[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{LOCK} pins {name}=={version}, outside pyproject.toml's {text!r}: refresh it"
        )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("duckdb==1.4.0\n", "not pinned with hashes"),
        ("duckdb>=1.4 \\\n    --hash=sha256:" + "a" * 64 + "\n", "not pinned with hashes"),
        ("duckdb==1.4.0 --hash=sha256:abc\n", "not pinned with hashes"),
    ],
)
def test_a_line_without_its_pin_or_hash_is_caught(text: str, problem: str) -> None:
    with pytest.raises(AssertionError, match=problem):
        locked(text)


def test_the_parser_reads_pip_compile_output() -> None:
    text = (
        "# header\nzstandard==0.25.0 \\\n    --hash=sha256:" + "a" * 64 + " \\\n"
        "    --hash=sha256:" + "b" * 64 + "\n    # via tracegrade (pyproject.toml)\n"
    )
    assert locked(text) == {"zstandard": (Version("0.25.0"), 2)}
