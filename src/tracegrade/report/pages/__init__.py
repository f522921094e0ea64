"""The HTML pages: one renderer for the file `--html` writes and the live pages of
`tracegrade serve`.

Each page is built from the database through a `Reader` (the file, or the server's
read-only SQL) into plain dataclasses, then rendered by one set of Jinja2 templates into a
self-contained string: style and scripts inside, a Content-Security-Policy that forbids
every fetch, readable without JavaScript except for the plots. A file's links point at its
own sections; live links are URLs (`LiveLinks`).

    run_file(reader, run_id=..., baseline=...)      # what `--html FILE` writes
    run_live / case_live / turn_live / runs_live / traffic_live   # what serve sends
    traces_live / monitor_live                                    # serve only
"""

from __future__ import annotations

from tracegrade.report.baseline import baseline_of_run
from tracegrade.report.diff.build import RunDiff
from tracegrade.report.pages.cases import case_view
from tracegrade.report.pages.links import FileLinks, LiveLinks, back_link
from tracegrade.report.pages.monitor import build_monitor_page
from tracegrade.report.pages.render import render
from tracegrade.report.pages.run import PageLimits, RunPage, build_run_page
from tracegrade.report.pages.sql import rows
from tracegrade.report.pages.traces import TracesFilter, build_traces_page
from tracegrade.report.pages.traffic import build_traffic_page
from tracegrade.report.pages.turn import build_turn_views, with_findings
from tracegrade.report.queries import ReportError, find_scoring, iso_utc
from tracegrade.report.run.build import build_cases
from tracegrade.report.runs.build import list_runs
from tracegrade.report.summary import scoring_info
from tracegrade.report.traffic.text import describe
from tracegrade.report.values import as_dict
from tracegrade.store.reader import Reader

__all__ = [
    "PageLimits",
    "RunPage",
    "build_run_page",
    "case_live",
    "monitor_live",
    "render_run_page",
    "run_file",
    "run_live",
    "runs_live",
    "traces_live",
    "traffic_file",
    "traffic_live",
    "turn_live",
]

# The file shows the worst traffic turns' waterfalls; live pages link to theirs.
TRAFFIC_FILE_WATERFALLS = 20


def run_file(
    reader: Reader,
    scoring_id: str | None = None,
    run_id: str | None = None,
    diff: RunDiff | None = None,
    limits: PageLimits | None = None,
) -> str:
    """One self-contained HTML file: the run, its worst cases and turns in full, and the
    diff against a baseline when given (`diff_runs`, which the CLI has already made)."""
    page = build_run_page(reader, scoring_id, run_id, diff, limits, waterfalls=True)
    return render_run_page(page, embed=True)


def render_run_page(page: RunPage, embed: bool) -> str:
    """A built run page as a file (`embed`: links within it) or as a live page."""
    if embed:
        cases = [(v.case.eval_set_id, v.case.case_id) for v in page.details]
        links: FileLinks | LiveLinks = FileLinks(cases, [t.turn_id for t in page.turns])
    else:
        links = LiveLinks()
    return render("run.html", charts=True, page=page, links=links, embed_turns=embed)


def run_live(reader: Reader, run_id: str, baseline: str | None = None, offset: int = 0) -> str:
    """`?baseline=` as `--baseline` takes it (previous, a tag, a run id), but no file: a
    query must not read the server's files."""
    diff = None
    if baseline:
        found = baseline_of_run(reader, baseline, run_id, option="baseline", files=False)
        diff = found.diff(reader, run_id)
    page = build_run_page(
        reader, None, run_id, diff, PageLimits(case_offset=offset), waterfalls=False
    )
    return render_run_page(page, embed=False)


def case_live(reader: Reader, run_id: str, eval_set_id: str, case_id: str) -> str:
    scoring = find_scoring(reader, None, run_id)
    found = build_cases(reader, str(scoring["scoring_id"]), [(eval_set_id, case_id)])
    if not found:
        raise ReportError(f"run '{run_id}' has no case '{eval_set_id}/{case_id}'")
    view = case_view(run_id, found[0], scoring_info(scoring).criteria, repeat_rows=500)
    return render("case.html", view=view, links=LiveLinks())


def turn_live(reader: Reader, turn_id: str, back: str | None = None) -> str:
    """A turn with its scores in the latest scoring that scored it, what they found, and a
    link back to the page it was opened from (`back`, when it is one of serve's pages)."""
    latest = rows(reader, "latest_turn_scoring", turn_id)
    views = build_turn_views(reader, [turn_id], latest[0]["scoring_id"] if latest else None)
    if not views:
        raise ReportError(f"no turn '{turn_id}'")
    turn = with_findings(reader, views[0])
    return render("turn.html", turn=turn, links=LiveLinks(), back=back_link(back))


def traces_live(reader: Reader, query: dict[str, str]) -> str:
    """The traces page, filtered as its address's query says."""
    page = build_traces_page(reader, TracesFilter.of(query))
    return render("traces.html", forms=True, page=page, links=LiveLinks())


def monitor_live(reader: Reader, query: dict[str, str]) -> str:
    """The monitor page: `window` (24h, 7d or 30d), and optionally `rule`, `agent` and
    `service` to narrow the series to."""
    page = build_monitor_page(
        reader,
        query.get("window") or "24h",
        query.get("rule") or None,
        query.get("agent") or None,
        query.get("service") or None,
    )
    return render("monitor.html", charts=True, page=page, links=LiveLinks())


def runs_live(reader: Reader) -> str:
    traffic = [
        {
            "scoring_id": r["scoring_id"],
            "scored_at": iso_utc(r["scored_us"]),
            "turns": r["turns"],
            "verdict": r["verdict"],
            "selection": describe(as_dict(r["selection"])),
        }
        for r in rows(reader, "traffic_scorings", 50)
    ]
    return render("runs.html", runs=list_runs(reader), traffic=traffic, links=LiveLinks())


def traffic_live(reader: Reader, scoring_id: str, offset: int = 0) -> str:
    page = build_traffic_page(reader, scoring_id, offset=offset)
    return render("traffic.html", charts=True, page=page, links=LiveLinks())


def traffic_file(reader: Reader, scoring_id: str) -> str:
    page = build_traffic_page(reader, scoring_id, waterfalls=TRAFFIC_FILE_WATERFALLS)
    links = FileLinks([], [t.turn_id for t in page.turns])
    return render("traffic.html", charts=True, page=page, links=links)
