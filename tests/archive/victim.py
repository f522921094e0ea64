"""A `tracegrade archive` that can be made to stop at a chosen step, for the kill -9 tests.

    python -m tests.archive.victim DB ROOT [written|committed] [MARKER]

`written`: stops after the batch's file is written, before its commit; `committed`: after
the commit, before the file is published. There it creates MARKER and sleeps until killed.
Otherwise it runs one whole pass and prints what recovery found and what moved.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import tracegrade.store.archive as archive


def _stop_before(name: str, marker: Path) -> None:
    def stop(*args: Any, **kwargs: Any) -> None:
        marker.touch()
        time.sleep(3600)

    setattr(archive, name, stop)


def main(db: str, root: str, step: str = "", marker: str = "") -> None:
    if step:
        _stop_before({"written": "_commit", "committed": "publish"}[step], Path(marker))
    done = archive.archive_database(db, root, shard="s0", retain_days=0)
    recovery = done.moved.recovery
    print(
        f"moved {done.moved.spans} rolled_forward {recovery.rolled_forward} "
        f"orphans_deleted {recovery.orphans_deleted}"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
