"""Running a method in a forked child, for as long as its object lives."""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable


def in_child_after_fork(method: Callable[[], None]) -> None:
    """Call the bound `method` in every child forked from now on, while its object lives.

    Hooks cannot be unregistered, so the hook holds the object weakly (as the SDK's
    batch processor does): a collected object is not kept alive by it.
    """
    weak = weakref.WeakMethod(method)

    def hook() -> None:
        bound = weak()
        if bound is not None:
            bound()

    os.register_at_fork(after_in_child=hook)
