"""``pytest-ocr history html DIR``: the history as a static site that works offline, from
``file://`` as from gh-pages or a CI artifact viewer.

    DIR/index.html             the suites and engines, their latest values, the window's runs
    DIR/chart-N.html           one suite and engine: a chart per metric (uPlot, shipped in
                               pytest_ocr/history/assets with its licence), the commits where
                               it got worse, fingerprint and version changes, the items that moved
    DIR/runs/ID.html           one run: where it came from, its engines and aggregates

Each chart page embeds its series as JSON (markup.embed_json: nothing in it can end the
script element) and draws it with uPlot and report/html_assets/history.js, both inlined
and admitted by hash in the page's Content-Security-Policy, as the HTML report is: the
site makes no request. Names, keys, commits and URLs come from the store and are
untrusted: escaped here (numbers too, which the store checked as it read them), inserted
with ``textContent`` by the script. The whole DIR is written into a temporary directory
beside it and renamed into place; what else a site written before holds (a CNAME, a
.nojekyll, a README someone added) is kept, linked into the new one: only the pages of the
site's own shapes (OURS) are replaced.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from .. import __version__
from ..files import write_atomic
from ..history.dashboard import Chart, Dashboard, Panel, RunDetail
from ..history.steps import Found
from ..history.store import RunRow
from ..history.trend import Series
from ..metrics import METRICS
from ..run.aggregate import metric_order
from .history_text import short
from .html.markup import asset, embed_json, esc, sha256, shown
from .numbers import number, signed

MARKER = ".pytest-ocr-history-site"  # in DIR: a site this command wrote, which it may replace
OURS = re.compile(r"index\.html|chart-[0-9]+\.html|runs/[0-9]+\.html")  # the pages it writes, by path in DIR
DATA_ID = "ocr-history-data"


class SiteError(Exception):
    """DIR cannot take the site (it holds something else)."""


def write(directory: Path, dash: Dashboard) -> int:
    """Write the site to ``directory``, replacing a site written there before; the pages written."""
    directory = Path(directory)
    if directory.exists() and any(directory.iterdir()) and not (directory / MARKER).is_file():
        raise SiteError(
            f"{directory} holds files that are not a pytest-ocr history site; give a new or empty directory"
        )
    pages = site(dash)
    directory.parent.mkdir(parents=True, exist_ok=True)
    temporary = directory.with_name(f".{directory.name}.{secrets.token_hex(4)}.tmp")
    temporary.mkdir()  # mkdir, not mkdtemp: the site keeps the umask's permissions, not 0700
    old = directory.with_name(f".{directory.name}.{secrets.token_hex(4)}.old")
    try:
        for name, text in pages.items():
            write_atomic(temporary / name, text)
        write_atomic(temporary / MARKER, f"written by pytest-ocr {__version__} history html\n")
        if directory.exists():
            _keep_others(directory, temporary)
            os.rename(directory, old)
        os.rename(temporary, directory)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        if old.exists() and not directory.exists():
            os.rename(old, directory)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return len(pages)


def _keep_others(old: Path, new: Path) -> None:
    """Every file in the old site that it did not write, linked (a symbolic link as itself,
    never followed) into the new one at its place; SiteError when one cannot be."""
    for top, folders, files in os.walk(old):
        for name in [*folders, *files]:
            path = Path(top) / name
            relative = path.relative_to(old)
            ours = relative.as_posix() == MARKER or OURS.fullmatch(relative.as_posix())
            try:
                if path.is_dir() and not path.is_symlink():
                    (new / relative).mkdir(exist_ok=True)
                elif not ours:
                    _link(path, new / relative)
            except OSError as exc:
                raise SiteError(f"{path} cannot be kept in the new site ({exc.strerror})") from None


def _link(path: Path, to: Path) -> None:
    try:
        os.link(path, to, follow_symlinks=False)
    except OSError:  # a file system without hard links: the symbolic link made again, a file copied
        if path.is_symlink():
            os.symlink(os.readlink(path), to)
        elif path.is_file():
            shutil.copy2(path, to)
        else:  # a FIFO or a device is not read
            raise


def site(dash: Dashboard) -> dict[str, str]:
    """Every page of the site by its path in DIR."""
    pages = {"index.html": _index(dash)}
    for n, panel in enumerate(dash.panels):
        pages[_chart_page(n)] = _panel_page(dash, panel)
    for detail in dash.runs:
        pages[_run_page(detail.run.id)] = _run_detail(dash, detail)
    return pages


def _chart_page(n: int) -> str:
    return f"chart-{n}.html"


def _run_page(run_id: int) -> str:
    return f"runs/{run_id}.html"


def _page(title: str, body: str, up: str = "", script: str = "", extra_style: str = "") -> str:
    """A page admitting only its own style and script, by hash. ``up``: the path to DIR."""
    style = extra_style + asset("history.css")
    csp = f"default-src 'none'; img-src data:; style-src 'sha256-{sha256(style)}'; "
    csp += (f"script-src 'sha256-{sha256(script)}'; " if script else "") + "base-uri 'none'; form-action 'none'"
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{esc(title)}</title><style>{style}</style></head><body>",
            f'<header><a href="{up}index.html">pytest-ocr history</a></header><main>',
            body,
            f"</main><footer>pytest-ocr {esc(__version__)}</footer>",
            f"<script>{script}</script>" if script else "",
            "</body></html>\n",
        ]
    )


def _commit(commit: str) -> str:
    return f'<code title="{esc(commit)}">{esc(short(commit))}</code>'


def _run_link(run_id: int | None, text: str, up: str = "") -> str:
    return text if run_id is None else f'<a href="{up}{_run_page(run_id)}">{text}</a>'


def _latest(series: Series) -> str:
    cell = series.cells[-1]
    return _number(cell.value) + (" (carried)" if cell.carried else "")


def _index(dash: Dashboard) -> str:
    t = dash.trend
    parts = [
        "<h1>pytest-ocr history</h1>",
        f"<p>Branch <code>{esc(t.branch)}</code>: {len(t.commits)} commits"
        + (f", {_commit(t.commits[0])} .. {_commit(t.commits[-1])}" if t.commits else "")
        + "</p>",
    ]
    if not dash.panels:
        parts.append("<p>No measured runs on this branch.</p>")
    for suite in sorted({p.suite for p in dash.panels}):
        parts.append(f'<h2>Suite {esc(suite)}</h2><table class="panels"><thead><tr><th>engine</th>')
        panels = [(n, p) for n, p in enumerate(dash.panels) if p.suite == suite]
        metrics = sorted({c.metric for _, p in panels for c in p.charts}, key=metric_order)
        parts.append(
            "".join(f"<th>{esc(m)} (macro)</th>" for m in metrics) + "<th>steps for the worse</th></tr></thead><tbody>"
        )
        for n, panel in panels:
            macro = {c.metric: s for c in panel.charts for s in c.series if s.kind == "macro"}
            cells = "".join(f'<td class="num">{_latest(macro[m]) if m in macro else "-"}</td>' for m in metrics)
            worse = sum(len(c.steps) for c in panel.charts)
            parts.append(
                f'<tr><th><a class="panel" href="{_chart_page(n)}">{esc(panel.engine)}</a></th>{cells}'
                f'<td class="num">{worse}</td></tr>'
            )
        parts.append("</tbody></table>")
    parts.append(_runs_table(dash.runs))
    return _page(f"pytest-ocr history: {t.branch}", "".join(parts))


def _runs_table(runs: Sequence[RunDetail]) -> str:
    rows = []
    for d in reversed(runs):
        r = d.run
        rows.append(
            f'<tr class="run"><td>{_run_link(r.id, esc(r.id))}</td><td>{esc(r.suite)}</td>'
            f"<td>{_commit(r.commit or '')}</td><td>{esc(r.attempt)}</td><td>{esc(r.status)}</td>"
            f"<td>{_counts(r)}</td><td>{esc(r.recorded_at[:19])}</td></tr>"
        )
    return (
        "<h2>Runs</h2><table><thead><tr><th>run</th><th>suite</th><th>commit</th><th>attempt</th><th>status</th>"
        f"<th>items</th><th>recorded</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _counts(r: RunRow) -> str:
    counts = r.counts
    return ", ".join(f"{esc(counts[k])} {esc(k)}" for k in sorted(counts) if counts[k]) or "-"


def _step_text(found: Found, commits: Sequence[str]) -> str:
    s = found.step
    where = f"commit {_commit(s.commit)}"
    if s.earliest != s.position:
        where = f"between commit {_commit(commits[s.earliest])} and {where}"
    return (
        f"worse at {where}: {_number(s.before)} &rarr; {_number(s.after)}, step {_signed(s.size)} "
        f"[{_signed(s.low)}, {_signed(s.high)}] ({s.confidence:.0%})"
    )


def _changes(chart: Chart) -> list[tuple[int, tuple[str, ...]]]:
    """Where the engine's fingerprint or a version changed, and what (the same for each kind)."""
    changes: dict[int, tuple[str, ...]] = {}
    for s in chart.series:
        for i, cell in enumerate(s.cells):
            if cell.changes:
                changes.setdefault(i, cell.changes)
    return sorted(changes.items())


def _chart_data(chart: Chart) -> dict[str, object]:
    return {
        "metric": chart.metric,
        "better": METRICS[chart.metric].better if chart.metric in METRICS else None,
        "series": [
            {
                "kind": s.kind,
                "values": [None if c.carried else c.value for c in s.cells],
                "carried": [c.value if c.carried else None for c in s.cells],
                "low": [None if c.carried else c.low for c in s.cells],
                "high": [None if c.carried else c.high for c in s.cells],
            }
            for s in chart.series
        ],
        "steps": [
            {"position": f.step.position, "kind": f.key.kind, "before": f.step.before, "after": f.step.after}
            for f in chart.steps
        ],
        "changes": [{"position": i, "what": list(what)} for i, what in _changes(chart)],
    }


def _panel_page(dash: Dashboard, panel: Panel) -> str:
    t = dash.trend
    runs = [None if (run := t.runs.get((panel.suite, i))) is None else _run_page(run.id) for i in range(len(t.commits))]
    data = {
        "commits": [shown(c) for c in t.commits],  # only ever shown: as the pages show them
        "runs": runs,
        "charts": [_chart_data(c) for c in panel.charts],
    }
    parts = [
        f"<h1>Suite {esc(panel.suite)}, engine {esc(panel.engine)}</h1>",
        f"<p>Branch <code>{esc(t.branch)}</code>, {len(t.commits)} commits. Drag across a chart to zoom, "
        "double-click to zoom out; hover for a commit's values; click a point to open its run. "
        "Red lines: the commit where a metric got worse (step detection); grey dashed lines and triangles: the "
        "engine's fingerprint, pytest-ocr's or a scorer's version changed. Hollow points are carried: the suite or "
        "engine did not run at that commit.</p>",
    ]
    for n, chart in enumerate(panel.charts):
        marks = [f'<li class="step" data-position="{f.step.position}">{esc(f.key.kind)}: '
                 f"{_step_text(f, t.commits)}</li>" for f in chart.steps]  # fmt: skip
        for i, what in _changes(chart):
            marks.append(
                f'<li class="change" data-position="{i}">{", ".join(esc(w) for w in what)} changed at '
                f"commit {_run_link(_run_id(dash, panel, i), _commit(t.commits[i]))}</li>"
            )
        parts.append(
            f'<section class="chart"><h2>{esc(chart.metric)}</h2><div class="plot" id="chart-{n}"></div>'
            f'<ul class="marks">{"".join(marks)}</ul></section>'
        )
    parts.append(_moving(dash, panel))
    parts.append(f'<script type="application/json" id="{DATA_ID}">{embed_json(data)}</script>')
    script = _uplot("uPlot.iife.min.js") + "\n" + asset("history.js")
    return _page(
        f"pytest-ocr history: {panel.suite} {panel.engine}",
        "".join(parts),
        script=script,
        extra_style=_uplot("uPlot.min.css"),
    )


def _run_id(dash: Dashboard, panel: Panel, position: int) -> int | None:
    run = dash.trend.runs.get((panel.suite, position))
    return None if run is None else run.id


def _moving(dash: Dashboard, panel: Panel) -> str:
    if not panel.moving:
        return "<h2>Items that moved</h2><p>No item got worse and stayed.</p>"
    rows = "".join(
        f'<tr class="moving"><td><code>{esc(f.key.item)}</code></td><td>{esc(f.key.metric)}</td>'
        f"<td>{_run_link(_run_id(dash, panel, f.step.position), _commit(f.step.commit))}</td>"
        f'<td class="num">{_number(f.step.before)}</td><td class="num">{_number(f.step.after)}</td>'
        f'<td class="num">{_signed(f.step.size)}</td></tr>'
        for f in panel.moving
    )
    return (
        "<h2>Items that moved</h2><p>The items whose value got worse and stayed, largest step first.</p>"
        "<table><thead><tr><th>item</th><th>metric</th><th>commit</th><th>before</th><th>after</th>"
        f"<th>step</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _run_detail(dash: Dashboard, d: RunDetail) -> str:
    r = d.run
    facts = [
        ("suite", esc(r.suite)),
        ("status", esc(r.status)),
        ("commit", f"<code>{esc(r.commit or '-')}</code>"),
        ("branch", esc(r.branch or "-")),
        ("parents", " ".join(f"<code>{esc(p)}</code>" for p in r.parents) or "-"),
        ("committed", esc(r.commit_time or "-")),
        ("attempt", esc(r.attempt)),
        ("ran", f"{esc(r.started_at)} .. {esc(r.finished_at)} ({esc(f'{r.duration_s:.1f}')} s)"),
        ("recorded", esc(r.recorded_at)),
        ("items", _counts(r)),
        ("pytest-ocr", esc(r.pytest_ocr)),
        ("scorers", ", ".join(f"{esc(k)} {esc(v)}" for k, v in sorted(r.scorers.items())) or "-"),
    ]
    if r.ci or r.job or r.run_url:
        facts.append(("CI", f"{esc(r.ci or '-')}, job {esc(r.job or '-')} {_external(r.run_url)}"))
    rows = "".join(f'<tr><th scope="row">{k}</th><td>{v}</td></tr>' for k, v in facts)
    engines = "".join(
        f"<tr><td>{esc(e.engine)}</td><td><code>{esc(e.fingerprint_id)}</code></td></tr>" for e in d.engines
    )
    aggregates = "".join(
        f"<tr><td>{esc(a.engine)}</td><td>{esc(a.metric)}</td><td>{esc(a.kind)}</td>"
        f'<td class="num value">{_number(a.value)}</td>'
        f'<td class="num">{"-" if a.low is None or a.high is None else f"[{_number(a.low)}, {_number(a.high)}]"}</td>'
        f'<td class="num">{esc(a.n)}</td></tr>'
        for a in sorted(d.aggregates, key=lambda a: (a.engine, metric_order(a.metric), a.kind))
    )
    body = (
        f'<h1>Run {esc(r.id)}</h1><table class="facts"><tbody>{rows}</tbody></table>'
        "<h2>Engines</h2><table><thead><tr><th>engine</th><th>fingerprint</th></tr></thead>"
        f"<tbody>{engines}</tbody></table>"
        "<h2>Aggregates</h2><table><thead><tr><th>engine</th><th>metric</th><th>kind</th><th>value</th>"
        f"<th>95% interval</th><th>n</th></tr></thead><tbody>{aggregates}</tbody></table>"
    )
    return _page(f"pytest-ocr history: run {r.id}", body, up="../")


def _number(value: float | None) -> str:
    """A number as people read it (numbers.py), escaped like every value from the store."""
    return esc(number(value))


def _signed(value: float | None) -> str:
    return esc(signed(value))


def _external(url: str | None) -> str:
    """A CI run's address: a link when it is http(s), else shown as text."""
    if not url:
        return ""
    if urlsplit(url).scheme in ("http", "https"):
        return f'<a href="{esc(url)}" rel="noopener noreferrer">{esc(url)}</a>'
    return f"<code>{esc(url)}</code>"


def _uplot(name: str) -> str:
    return resources.files("pytest_ocr.history").joinpath("assets").joinpath(name).read_text(encoding="utf-8")
