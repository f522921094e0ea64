"""The one renderer: Jinja2 templates to a string, for a file or a live response alike.

Everything a page shows that came from an agent or a user (tool arguments and results,
model output, case ids) is escaped by autoescape; a missing field fails the render
(StrictUndefined) instead of showing an empty cell. A page is self-contained: its style
and scripts are inside it, and its Content-Security-Policy forbids every fetch, so a page
opened from disk or served live makes no request at all.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from tracegrade import __version__
from tracegrade.report import values
from tracegrade.report.pages.diffs import diff_groups
from tracegrade.report.pages.links import case_anchor, turn_anchor
from tracegrade.report.pages.turn_content import CAPTURE_HINT

# Observable Plot needs d3; charts.js draws the page's charts with Plot.
CHART_SCRIPTS = ("d3.min.js", "plot.umd.min.js", "charts.js")
_FORMS, _NO_FORMS = "'self'", "'none'"


def render(template: str, charts: bool = False, forms: bool = False, **context: Any) -> str:
    """A page: `template` from templates/ with `context`; `charts` inlines the chart
    scripts (a page without charts runs no script at all); `forms`: the page's forms may
    be sent, to this server only."""
    scripts = [_script(name) for name in CHART_SCRIPTS] if charts else []
    return (
        _environment()
        .get_template(template)
        .render(
            scripts=[Markup(s) for s in scripts],
            csp=content_security_policy(scripts, forms),
            **context,
        )
    )


def content_security_policy(scripts: list[str], forms: bool = False) -> str:
    """Nothing may be fetched; only these exact inline scripts may run (by hash), so a
    script that escaping missed would still not run. A page with `forms` (the traces
    page's filters, sent by GET) may send them to its own server, nowhere else."""
    hashes = " ".join(f"'sha256-{_sha256(s)}'" for s in scripts) or "'none'"
    return (
        "default-src 'none'; "
        f"script-src {hashes}; "
        "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
        f"form-action {_FORMS if forms else _NO_FORMS}"
    )


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


@functools.cache
def _script(name: str) -> str:
    text = (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")
    # An inlined script must not end its own <script> element early.
    return text.replace("</script", "<\\/script")


@functools.cache
def stylesheet() -> Markup:
    return Markup((resources.files(__package__) / "static" / "page.css").read_text("utf-8"))


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        stylesheet=stylesheet,
        case_anchor=case_anchor,
        turn_anchor=turn_anchor,
        diff_groups=diff_groups,
        version=__version__,
        capture_hint=CAPTURE_HINT,
    )
    # Chart data goes into the page as JSON: dataclasses as objects. tojson escapes <, >, &
    # and ', so no text in it can end its <script> element.
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "default": _plain}
    env.filters.update(
        num=values.num,
        ms=values.ms,
        usd=values.usd,
        count=values.count,
        pct=values.pct,
        plural=values.plural,
        comparator=values.comparator,
        exit_meaning=values.exit_meaning,
    )
    return env


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")
