"""Where a page's links go: the same templates make a self-contained file, whose links
point at sections of itself, and the live pages of `tracegrade serve`, whose links are URLs.

A link a page cannot hold (a turn whose waterfall a file left out) is None, and the
templates show plain text instead of a link that leads nowhere.
"""

from __future__ import annotations

import hashlib
import re
from typing import Protocol
from urllib.parse import quote, urlencode

CaseKey = tuple[str, str]


class Links(Protocol):
    def run(self, run_id: str) -> str | None: ...

    def case(self, run_id: str, eval_set_id: str, case_id: str) -> str | None: ...

    def turn(self, turn_id: str, back: str | None = None) -> str | None: ...

    def traffic(self, scoring_id: str) -> str | None: ...

    def runs(self) -> str | None: ...


class LiveLinks:
    """URLs of the live pages."""

    def run(self, run_id: str) -> str:
        return f"/runs/{_part(run_id)}"

    def case(self, run_id: str, eval_set_id: str, case_id: str) -> str:
        return f"/runs/{_part(run_id)}/cases/{_part(eval_set_id)}/{_part(case_id)}"

    def turn(self, turn_id: str, back: str | None = None) -> str:
        """The turn's page; `back`: the page it was opened from, which it links back to."""
        return f"/turns/{_part(turn_id)}" + (f"?{urlencode({'back': back})}" if back else "")

    def traces(self) -> str:
        return "/traces"

    def monitor(self) -> str:
        return "/monitor"

    def traffic(self, scoring_id: str) -> str:
        return f"/traffic/{_part(scoring_id)}"

    def runs(self) -> str:
        return "/"


# The pages a turn's page may link back to: this server's own, never another site's.
_BACK_PAGES = ("/traces", "/monitor", "/traffic/", "/runs/")


def back_link(text: str | None) -> str | None:
    """`text` when it is the address of one of the live pages, else None (a `back` that
    names another site, or a scheme, is not followed)."""
    if not text or not text.startswith(_BACK_PAGES) or "\\" in text or "//" in text:
        return None
    return text


def _part(text: str) -> str:
    return quote(text, safe="")


class FileLinks:
    """Anchors within one file, for the cases and turns it shows in full."""

    def __init__(self, cases: list[CaseKey], turn_ids: list[str]) -> None:
        self._cases = set(cases)
        self._turns = set(turn_ids)

    def run(self, run_id: str) -> None:
        return None

    def case(self, run_id: str, eval_set_id: str, case_id: str) -> str | None:
        shown = (eval_set_id, case_id) in self._cases
        return f"#{case_anchor(eval_set_id, case_id)}" if shown else None

    def turn(self, turn_id: str, back: str | None = None) -> str | None:
        return f"#{turn_anchor(turn_id)}" if turn_id in self._turns else None

    def traffic(self, scoring_id: str) -> None:
        return None

    def runs(self) -> None:
        return None


def case_anchor(eval_set_id: str, case_id: str) -> str:
    """The id of a case's section: its ids when they are plain letters, digits, '.', '_'
    and '-', else those with a hash of the ids, so two ids never share a section."""
    key = f"{eval_set_id}.{case_id}"
    slug = _SLUG.sub("_", key)
    if slug != key:
        slug += "-" + hashlib.sha256(key.encode()).hexdigest()[:8]
    return f"case-{slug}"


def turn_anchor(turn_id: str) -> str:
    return "turn-" + _SLUG.sub("_", turn_id)


_SLUG = re.compile(r"[^A-Za-z0-9._-]")
