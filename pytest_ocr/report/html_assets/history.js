// pytest-ocr history html: draws each chart page's series (embedded as JSON) with uPlot.
// Text from the store is inserted with textContent only; the page makes no request.
(() => {
  "use strict";
  const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"];
  const STEP = "#d62728";
  const CHANGE = "#7f7f7f";
  const short = (commit) => (commit ? commit.slice(0, 12) : "(no commit)");
  const fixed = (v) => (v == null ? "-" : Number(v).toPrecision(4));
  const interval = (s, i) => (i == null || s.low[i] == null || s.high[i] == null ? "" : " [" + fixed(s.low[i]) + ", " + fixed(s.high[i]) + "]");

  // Vertical lines where a metric got worse (solid red) and where a fingerprint or version
  // changed (dashed grey, under the red one when both, with a grey triangle at the top), drawn
  // over the plot; what was drawn is kept on the chart (u.ocrMarks) for the tests to read.
  function marks(chart) {
    const line = (u, position, colour, dash, kind) => {
      const x = u.valToPos(position, "x", true);
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = colour;
      ctx.fillStyle = colour;
      ctx.lineWidth = 2 * devicePixelRatio;
      ctx.setLineDash(dash.map((d) => d * devicePixelRatio));
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.restore();
      u.ocrMarks.push({ kind, position, x: x / devicePixelRatio });
    };
    const triangle = (u, position, colour) => {
      const x = u.valToPos(position, "x", true);
      const r = 6 * devicePixelRatio;
      const ctx = u.ctx;
      ctx.save();
      ctx.fillStyle = colour;
      ctx.beginPath();
      ctx.moveTo(x - r, u.bbox.top);
      ctx.lineTo(x + r, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + 1.5 * r);
      ctx.fill();
      ctx.restore();
    };
    return {
      hooks: {
        drawClear: [(u) => { u.ocrMarks = []; }],
        draw: [
          (u) => {
            chart.changes.forEach((c) => line(u, c.position, CHANGE, [6, 4], "change"));
            chart.steps.forEach((s) => line(u, s.position, STEP, [], "step"));
            chart.changes.forEach((c) => triangle(u, c.position, CHANGE));
          },
        ],
      },
    };
  }

  function draw(data, chart, box) {
    const xs = data.commits.map((_, i) => i);
    const series = [{ label: "commit", value: (u, v) => (v == null ? "-" : short(data.commits[v])) }];
    const columns = [xs];
    chart.series.forEach((s, k) => {
      const colour = COLOURS[k % COLOURS.length];
      series.push({ label: s.kind, stroke: colour, width: 2, spanGaps: true, points: { show: true, size: 7, fill: colour }, value: (u, v, _, i) => fixed(v) + interval(s, i) });
      columns.push(s.values);
      if (s.carried.some((v) => v != null)) {
        series.push({ label: s.kind + " carried", stroke: colour, paths: () => null, points: { show: true, size: 7, fill: "#fff", stroke: colour }, value: (u, v) => fixed(v) });
        columns.push(s.carried);
      }
    });
    const opts = {
      width: Math.max(400, box.clientWidth),
      height: 320,
      series,
      scales: { x: { time: false, range: (u, min, max) => [min - 0.5, max + 0.5] } },
      axes: [
        { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) && data.commits[t] !== undefined ? short(data.commits[t]).slice(0, 7) : "")) },
        { label: chart.metric + (chart.better ? " (" + chart.better + " is better)" : "") },
      ],
      cursor: { drag: { x: true, y: false } },
      plugins: [marks(chart)],
    };
    const u = new uPlot(opts, columns, box);
    // a click (not the end of a drag to zoom) on a commit opens its run's page
    let down = null;
    u.over.addEventListener("mousedown", (e) => { down = [e.clientX, e.clientY]; });
    u.over.addEventListener("click", (e) => {
      const moved = down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 3;
      const i = u.posToIdx(e.offsetX);
      if (!moved && i != null && data.runs[i]) window.location.href = data.runs[i];
    });
    return u;
  }

  try {
    const data = JSON.parse(document.getElementById("ocr-history-data").textContent);
    window.ocrCharts = data.charts.map((chart, n) => draw(data, chart, document.getElementById("chart-" + n)));
    document.body.setAttribute("data-ocr-rendered", "");
  } catch (error) {
    document.body.setAttribute("data-ocr-error", String(error));
    throw error;
  }
})();
