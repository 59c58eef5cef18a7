"""The HTML report (``--ocr-html PATH``): one self-contained file, written atomically.

The page is assembled here from the typed run record: the run, the per-engine summary,
the gates and the dataset accounting, with the comparison with a baseline (baseline.py)
and the charts (charts.py, inline SVG). The cases are embedded as JSON (cases.py) and
rendered by the page's script on demand, one page of rows at a time and a case's
details when it is opened, so 5,000 cases open fast. A case carries its texts as given
and, when its normalisation changed them, as scored (what the metrics compared), each
with its alignment, so the diff can show either. Each image's thumbnail (thumbnails.py)
is embedded once, in a data block of its own that the script reads only when a case
showing it is opened.

Everything that comes from engines, case files and configuration is untrusted text.
Here it goes through ``html.escape``; embedded JSON escapes ``<``, ``>``, ``&`` and
U+2028/2029, so no string can end its script element; the script inserts text with
``textContent`` only. A Content-Security-Policy admits this file's own script and
style (by hash) and ``data:`` images, and nothing else: markup that slipped through
would not run, and the page makes no network request.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ... import __version__
from ...metrics import METRICS
from ...run.aggregate import DatasetSummary, Summary, metric_order
from ...run.gates import GateResult
from ...run.identity import relative_paths
from ...run.record import RunInfo, RunRecord
from ...run.result import CaseResult
from ...storable import json_safe
from ..numbers import STABILITY_ROWS, fact_rows, number, stability_cell
from .baseline import baseline_change, baseline_section
from .cases import case_data
from .charts import charts
from .markup import COLOURS, asset, embed_json, esc, finite, fixed, plural, sha256
from .thumbnails import outside, picture, picture_source, thumbnails

THUMB_ID = "ocr-thumb-"
DATA_ID = "ocr-data"


def _summary_table(summaries: dict[str, Summary], engines: list[str], metrics: list[str]) -> str:
    head = "".join(
        f'<th scope="col"><span class="swatch s{i % len(COLOURS)}"></span>{esc(e)}</th>' for i, e in enumerate(engines)
    )
    rows = []
    counted = ("cases", "passed", "failed", "errors") + tuple(
        f for f in ("filtered", "skipped") if any(getattr(summaries[e], f) for e in engines)
    )
    for field in counted:
        cells = "".join(f'<td class="num">{esc(getattr(summaries[e], field))}</td>' for e in engines)
        rows.append(f'<tr class="{field}"><th scope="row">{field}</th>{cells}</tr>')
    for key, label, digits in (
        ("pages_per_s", "pages/s (engine time)", 2),
        ("mean_s", "s per page, mean", 3),
        ("p95_s", "s per page, p95", 3),
    ):
        values = [finite(getattr(summaries[e].performance, key)) for e in engines]
        if any(v is not None for v in values):
            cells = "".join(f'<td class="num">{fixed(v, digits)}</td>' for v in values)
            rows.append(f'<tr><th scope="row">{label}</th>{cells}</tr>')
    stability = [summaries[e].stability for e in engines]
    if any(s is not None for s in stability):  # repeats: how alike each engine's outputs were
        for label, key in STABILITY_ROWS:
            cells = "".join(
                f'<td class="num">{stability_cell(None if s is None else finite(getattr(s, key)))}</td>'
                for s in stability
            )
            rows.append(f'<tr class="stability"><th scope="row">{label}</th>{cells}</tr>')
    facts = [json_safe(asdict(f)) if (f := summaries[e].facts) else None for e in engines]
    for label, shown in fact_rows(facts):  # checks: olmOCR-Bench's score
        cells = "".join(f'<td class="num">{esc(v)}</td>' for v in shown)
        rows.append(f'<tr class="facts"><th scope="row">{esc(label)}</th>{cells}</tr>')
    for metric in metrics:
        better = METRICS[metric].better if metric in METRICS else None
        hint = f' <span class="hint">({better} is better)</span>' if better else ""
        aggregates = [summaries[e].metrics.get(metric) for e in engines]
        for kind in ("macro", "micro"):
            cells = "".join(
                f'<td class="num">{number(None if a is None else finite(getattr(a, kind)))}</td>' for a in aggregates
            )
            rows.append(f'<tr><th scope="row">{esc(metric)} {kind}{hint if kind == "macro" else ""}</th>{cells}</tr>')
        if metric == "cer":
            ci_cells = []
            for a in aggregates:
                ci = None if a is None else a.ci95
                ci_cells.append(
                    f'<td class="num">{number(finite(ci[0]))}–{number(finite(ci[1]))}</td>'
                    if ci
                    else f'<td class="num">{number(None)}</td>'
                )
            rows.append(f'<tr><th scope="row">cer macro 95% CI</th>{"".join(ci_cells)}</tr>')
    return (
        f'<table class="summary"><thead><tr><th scope="col">engine</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        '<p class="note">macro = mean over cases; micro = pooled over cases (total errors / total length); '
        "the metrics every summary shows (CER, WER and those a case has a threshold on or asked for); "
        "every metric of a case is in its details and in the JSON report</p>"
    )


def _run_section(run: RunInfo) -> str:
    stopped = f", {run.not_run} not run: {run.interruption}" if run.status == "interrupted" else ""
    items = [
        ("status", run.status + stopped),
        ("started", run.started_at),
        ("finished", run.finished_at),
        ("duration", None if finite(run.duration_s) is None else f"{run.duration_s:.1f} s"),
        ("workers", run.workers),
        ("pytest", run.pytest),
        ("python", run.python),
        ("platform", run.platform),
        ("pytest-ocr", __version__),
    ]
    shown = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items if v is not None)
    return f'<dl class="run">{shown}</dl>'


def _engines_section(engines: dict[str, dict[str, Any]]) -> str:
    rows = []
    for name, fp in engines.items():
        config = json.dumps(json_safe(fp.get("config")), indent=2, ensure_ascii=False, sort_keys=True)
        rows.append(
            f"<tr><td>{esc(name)}</td><td>{esc(fp.get('type'))}</td><td>{esc(fp.get('version') or '–')}</td>"
            f"<td><code>{esc(fp.get('fingerprint_id'))}</code></td>"
            f"<td><details><summary>config</summary><pre>{esc(config)}</pre></details></td></tr>"
        )
    if not rows:
        return ""
    return (
        '<h3>Engines</h3><table class="engines"><thead><tr><th>engine</th><th>type</th><th>version</th>'
        f"<th>fingerprint</th><th>configuration</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _gates_section(gates: list[GateResult]) -> str:
    if not gates:
        return ""
    rows = "".join(
        f'<tr class="{"passed" if g.passed else "failed"}"><td>{"passed" if g.passed else "FAILED"}</td>'
        f'<td>{esc(g.name)}</td><td class="num">{number(finite(g.value))}</td>'
        f'<td class="num">{esc(g.cases)}</td><td class="text">{esc(g.message)}</td></tr>'
        for g in gates
    )
    return (
        '<h3>Aggregate gates</h3><table class="gates"><thead><tr><th>verdict</th><th>gate</th><th>value</th>'
        f"<th>cases</th><th>message</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _datasets_section(datasets: list[DatasetSummary]) -> str:
    """The dataset evaluator's accounting, as the terminal and the JSON report give it."""
    if not datasets:
        return ""
    rows = "".join(
        f'<tr><td class="text">{esc(d.file)}</td><td>{esc(d.type)}</td><td>{esc(d.engine)}</td>'
        + "".join(f'<td class="num">{v}</td>' for v in (d.total, d.evaluated, d.filtered, d.skipped))
        + "".join(f'<td class="num">{number(v)}</td>' for v in (d.accuracy, d.ned, d.ned_similarity))
        + f'<td class="num">{fixed(d.wall_s, 2)} s</td>'
        + f'<td class="num">{"-" if d.inference_mean_ms is None else f"{d.inference_mean_ms:.1f} ms"}</td></tr>'
        for d in datasets
    )
    skipped = {d.file: d.skipped_entries for d in datasets if d.skipped_entries}
    entries = "".join(
        f"<li><code>{esc(e['file'])}{'' if e.get('line') is None else ':' + esc(e['line'])}</code>: "
        f"{esc(e['reason'])}</li>"
        for found in skipped.values()
        for e in found
    )
    return (
        "<h2>Datasets</h2>"
        '<table class="datasets"><thead><tr><th>dataset</th><th>type</th><th>engine</th><th class="num">total</th>'
        '<th class="num">evaluated</th><th class="num">filtered</th><th class="num">skipped</th>'
        '<th class="num">accuracy</th><th class="num">ned</th><th class="num">similarity</th>'
        '<th class="num">wall time</th><th class="num">inference/img</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        '<p class="note">total = evaluated + filtered + skipped (entries that became no case, and items that '
        "errored); accuracy = exact match and ned = normalised edit distance, means over the evaluated items; "
        "wall time = first item's start to last item's end; inference per image over the outputs made in this "
        "run (not from the cache)</p>"
        + (f'<h3>Skipped entries</h3><ul class="skipped">{entries}</ul>' if entries else "")
    )


def _invalid_section(invalid: list[CaseResult]) -> str:
    if not invalid:
        return ""
    items = "".join(f'<li><code>{esc(f.file)}</code><pre class="error">{esc(f.error)}</pre></li>' for f in invalid)
    return f'<h3>Case files that could not be loaded ({len(invalid)})</h3><ul class="invalid">{items}</ul>'


def render(record: RunRecord, root: Path, in_project: bool = False) -> str:
    """The page of a run; image paths in results are relative to ``root`` (the project
    directory). ``in_project``: only images in it are read (a merge's, from shard reports)."""
    invalid = record.with_outcome("invalid")
    results = [r for r in record.results if r.outcome != "invalid"]
    engines = list(record.summaries) or sorted({r.engine for r in results if r.engine is not None})
    summaries = {e: record.summaries.get(e) or Summary(e) for e in engines}

    images = sorted({picture(r) for r in results if r.image})
    away = outside(root, [image for image, _, _ in images]) if in_project else {}
    inside = [image for image in images if image[0] not in away]
    urls, made = thumbnails([picture_source(root, *image) for image in inside])
    by_image = dict(zip(inside, made, strict=True))
    per_image = [by_image.get(image) or (None, f"not shown: {away[image[0]]}") for image in images]
    # why an image has no thumbnail names it as the results do, relative to the project
    thumb_of = {
        shown: (i, why and relative_paths(why, root)) for shown, (i, why) in zip(images, per_image, strict=True)
    }
    changes = {r.key: baseline_change(r) for r in record.results}
    cases = []
    for r in results:
        thumb, thumb_error = thumb_of.get(picture(r), (None, "no image"))
        cases.append(case_data(r, thumb, thumb_error, changes.get(r.key)))
    metrics = sorted({m for r in results for m in r.metrics}, key=metric_order)
    payload = {
        "engines": engines,
        "metrics": metrics,
        "baseline": record.comparison is not None or any(changes.values()),
        "better": {m: METRICS[m].better for m in metrics if m in METRICS},
        "confusions": {e: summaries[e].top_confusions for e in engines},
        "cases": cases,
    }

    script, style = asset("report.js"), asset("report.css")
    csp = (
        f"default-src 'none'; img-src data:; style-src 'sha256-{sha256(style)}'; "
        f"script-src 'sha256-{sha256(script)}'; base-uri 'none'; form-action 'none'"
    )
    counts = record.counts()
    title = f"pytest-ocr report: {len(record.results)} items, {record.run.started_at}"
    thumbs = "".join(f'<script type="text/plain" id="{THUMB_ID}{i}">{url}</script>' for i, url in enumerate(urls))
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{esc(title)}</title><style>{style}</style></head><body>",
            f'<header><h1>pytest-ocr report</h1><p class="counts">{len(record.results)} items: '
            f'<span class="outcome passed">{counts["passed"]} passed</span> '
            f'<span class="outcome failed">{counts["failed"]} failed</span> '
            f'<span class="outcome error">{plural(counts["error"], "error")}</span>',
            f' <span class="outcome filtered">{counts["filtered"]} filtered</span>' if counts["filtered"] else "",
            f' <span class="outcome skipped">{counts["skipped"]} skipped</span>' if counts["skipped"] else "",
            f' <span class="outcome error">{plural(counts["invalid"], "invalid case file")}</span>'
            if counts["invalid"]
            else "",
            f' <span class="outcome error">run {esc(record.run.status)}: {record.run.not_run} not run</span>'
            if record.run.status != "complete"
            else "",
            "</p>",
            '<nav><a href="#view=overview" id="tab-overview">Overview</a>'
            f'<a href="#view=cases" id="tab-cases">Cases ({len(results)})</a></nav></header>',
            '<main><section id="overview"><h2>Summary</h2>',
            _summary_table(summaries, engines, record.shown_metrics()),
            _gates_section(record.gates),
            baseline_section(record.comparison, record.results),
            _datasets_section(record.datasets),
            charts(results, summaries, engines),
            '<h3>Top character confusions</h3><div id="engine-confusions" class="heatmaps">'
            '<p class="note">Drawn by the page script.</p></div>',
            _invalid_section(invalid),
            "<h2>Run</h2>",
            _run_section(record.run),
            _engines_section(record.engines),
            "</section>",
            '<section id="cases"><h2>Cases</h2><div id="case-controls"></div><div id="case-list">'
            '<p class="note">The case list is drawn by the page script (JavaScript is needed).</p></div></section>',
            "</main>",
            f'<script type="application/json" id="{DATA_ID}">{embed_json(payload)}</script>',
            thumbs,
            f"<script>{script}</script></body></html>\n",
        ]
    )
