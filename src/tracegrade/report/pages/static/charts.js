// tracegrade's charts: each <figure data-chart> holds its data as JSON; Observable Plot
// draws it as SVG beside the figure's table (which readers without JavaScript see).
// Each mark carries a class (bins, budget, runs) so a test counts what was drawn.
"use strict";
(function () {
  const BAR = "#3d6a99", RULE = "#a40e26", NOW = "#a40e26", DOT = "#3d6a99";

  function histogram(c) {
    const rules = c.rules.map((r, i) => ({...r, i}));
    return Plot.plot({
      height: 190, marginLeft: 48, marginTop: 14 + 14 * rules.length,
      ariaLabel: c.title,
      x: {label: c.unit || c.metric, domain: c.domain},
      y: {label: "turns", grid: true},
      marks: [
        Plot.rectY(c.bins, {x1: "x0", x2: "x1", y: "turns", fill: BAR, insetLeft: 1,
                            className: "bins", title: d => `${d.x0} to ${d.x1}: ${d.turns} turns`}),
        Plot.ruleX(rules, {x: "x", stroke: RULE, strokeWidth: 2, className: "budget"}),
        // One label per line, stacked above the frame so two close budgets stay legible.
        ...rules.map(r => Plot.text([r], {x: "x", text: "label", frameAnchor: "top",
                                          fill: RULE, dy: -6 - 14 * r.i, className: "budget-label"})),
        Plot.ruleY([0]),
      ],
    });
  }

  function trend(c) {
    const last = c.points.length - 1;
    const points = c.points.map((p, i) => ({...p, i}));
    return Plot.plot({
      height: 170, marginLeft: 56,
      ariaLabel: c.title,
      x: {label: "runs (this one last)", ticks: points.map(p => p.i),
          tickFormat: i => (i === last ? "this" : String(i - last))},
      y: {label: c.unit || c.metric, grid: true},
      marks: [
        Plot.ruleY(c.rules, {y: "x", stroke: RULE, strokeDasharray: "4 3", className: "budget"}),
        Plot.lineY(points, {x: "i", y: "score", stroke: DOT}),
        Plot.dot(points, {x: "i", y: "score", r: p => (p.current ? 5 : 3.5),
                          fill: p => (p.current ? NOW : DOT), className: "runs",
                          title: p => `${p.run_id}: ${p.score}`}),
      ],
    });
  }

  // A metric of traffic over time: one dot per bucket and service version, the rule's
  // thresholds across, a dashed mark where a new service.version began.
  function series(c) {
    // A point sits at its version's first turn in the bucket: a deploy mid-hour puts the
    // new version's point on its mark, not an hour before it.
    const points = c.points.filter(p => p.mean !== null).map(p => ({...p, t: new Date(p.first_ms)}));
    const versions = c.versions.map(v => ({...v, t: new Date(v.t_ms)}));
    return Plot.plot({
      height: 200, marginLeft: 56, marginTop: 18,
      ariaLabel: c.title,
      x: {type: "utc", label: "time (UTC)", domain: c.domain.map(ms => new Date(ms))},
      y: {label: c.metric, grid: true},
      marks: [
        Plot.ruleY(c.rules, {y: "x", stroke: RULE, strokeWidth: 2, className: "threshold",
                             title: "label"}),
        Plot.ruleX(versions, {x: "t", stroke: "#6a737d", strokeDasharray: "5 3",
                              className: "version", title: "label"}),
        Plot.text(versions, {x: "t", text: "label", frameAnchor: "top", dy: -10, dx: -3,
                             textAnchor: "end", fill: "#4d5661", className: "version-label"}),
        Plot.lineY(points, {x: "t", y: "mean", stroke: DOT, z: "version"}),
        Plot.dot(points, {x: "t", y: "mean", r: 3.5, fill: DOT, className: "points",
                          title: p => `${p.at} ${p.version || ""}: ${p.mean} (${p.turns} turns)`}),
      ],
    });
  }

  const DRAW = {histogram, trend, series};
  for (const figure of document.querySelectorAll("figure[data-chart]")) {
    const spec = JSON.parse(figure.querySelector("script[type='application/json']").textContent);
    figure.querySelector(".plot").append(DRAW[figure.dataset.chart](spec));
  }
})();
