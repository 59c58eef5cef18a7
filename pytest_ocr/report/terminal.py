"""The OCR section of pytest's terminal summary."""

from __future__ import annotations

import json
from typing import Any

from wcwidth import wcswidth

from ..metrics.edit import DELETE, INSERT
from ..run.aggregate import DatasetSummary, worst
from ..run.baseline import BaselineView
from ..run.gates import GateResult
from ..run.record import RunRecord
from ..storable import json_safe
from .visible import visible, visible_json

WORST_CASES = 5
SHOWN_CONFUSIONS = 8


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def width(text: str) -> int:
    """Columns the text takes in a terminal: CJK and other wide characters take two,
    combining marks none (wcwidth; unprintable characters count one each)."""
    columns = wcswidth(text)
    return columns if columns >= 0 else len(text)


def _ljust(text: str, columns: int) -> str:
    return text + " " * (columns - width(text))


def _rjust(text: str, columns: int) -> str:
    return " " * (columns - width(text)) + text


def table(header: list[str], rows: list[tuple[str, list[str]]], label: str) -> list[str]:
    """A label column on the left, value columns right-aligned, by display width."""
    label_width = max(width(label), *(width(name) for name, _ in rows))
    widths = [max(width(h), *(width(cells[i]) for _, cells in rows)) for i, h in enumerate(header)]
    lines = [_ljust(label, label_width) + "  " + "  ".join(_rjust(h, w) for h, w in zip(header, widths, strict=True))]
    for name, cells in rows:
        lines.append(
            _ljust(name, label_width) + "  " + "  ".join(_rjust(c, w) for c, w in zip(cells, widths, strict=True))
        )
    return lines


def _show_char(text: str) -> str:
    return text if text in (DELETE, INSERT) else repr(text)


def summary(record: RunRecord, verbosity: int, shape: str = "table") -> list[str]:
    """The OCR section of the terminal summary: ``table`` (engines side by side, then the
    baseline, datasets, gates and how the run ended) or ``json`` (summary and gates)."""
    if shape == "json":
        document = {
            "summary": {name: s.to_dict() for name, s in record.summaries.items()},
            "gates": [g.to_dict() for g in record.gates],
        }
        return visible_json(json.dumps(json_safe(document), indent=2, ensure_ascii=False, allow_nan=False)).splitlines()
    lines = engine_lines(record, verbosity) if record.summaries else []
    lines += invalid_lines(record)
    lines += baseline_lines(record.baseline, verbosity) if record.baseline else []
    lines += dataset_lines(record.datasets)
    lines += gate_lines(record.gates)
    cached = sum(r.cached for r in record.results)
    if cached:
        lines.append(
            f"OCR outputs from the cache: {cached} of {len(record.results)} (not timed; "
            f"--ocr-refresh runs the engines again)"
        )
    if record.run.status != "complete":
        lines.append(
            f"run {record.run.status}: {record.run.not_run} OCR item(s) did not run "
            f"({visible(record.run.interruption or '')})"
        )
    # Every piece of untrusted text is made visible where it is put in; this pass is the
    # safety net for how pieces join up (visible is idempotent on its own output).
    return [visible(line) for line in lines]


def engine_lines(record: RunRecord, verbosity: int) -> list[str]:
    """Engines side by side, then (unless -q) per-tag/group CER, top confusions,
    the worst cases and the first errors."""
    summaries = record.summaries
    engines = list(summaries)
    names = [visible(e) for e in engines]
    rows: list[tuple[str, list[str]]] = [
        (field, [str(getattr(summaries[e], field)) for e in engines])
        for field in ("cases", "passed", "failed", "errors", "filtered", "skipped")
        if field not in ("filtered", "skipped") or any(getattr(s, field) for s in summaries.values())
    ]
    for metric in record.shown_metrics():
        for kind in ("macro", "micro"):
            cells = [_fmt(getattr(summaries[e].metrics.get(metric), kind, None)) for e in engines]
            rows.append((f"{metric} {kind}", cells))
        if metric == "cer":
            cells = []
            for e in engines:
                ci = getattr(summaries[e].metrics.get("cer"), "ci95", None)
                cells.append(f"{ci[0]:.4f}-{ci[1]:.4f}" if ci else "-")
            rows.append(("cer macro 95% CI", cells))
    rows.append(("pages/s", [_rate(summaries[e].performance.pages_per_s) for e in engines]))
    rows.append(("time/page mean", [_seconds(summaries[e].performance.mean_s) for e in engines]))
    rows.append(("time/page p95", [_seconds(summaries[e].performance.p95_s) for e in engines]))
    lines = table(names, rows, "engine")
    lines.append(
        "macro = mean over cases; micro = pooled over cases (total errors / total length); "
        "pages/s and time/page: engine time, summed over workers"
    )
    if verbosity < 0:
        return lines

    for engine in engines:
        # A group holding every case of the engine repeats the engine's own row.
        groups = {k: g for k, g in summaries[engine].groups.items() if g.cases < summaries[engine].cases}
        if groups:
            lines.append(f"by tag and group ({visible(engine)}):")
            group_rows = [
                (
                    visible(key),
                    [
                        str(g.cases),
                        _fmt(getattr(g.metrics.get("cer"), "macro", None)),
                        _fmt(getattr(g.metrics.get("cer"), "micro", None)),
                    ],
                )
                for key, g in groups.items()
            ]
            lines += ["  " + line for line in table(["cases", "cer macro", "cer micro"], group_rows, "")]
    for engine in engines:
        confusions = summaries[engine].top_confusions[:SHOWN_CONFUSIONS]
        if confusions:
            shown = ", ".join(f"{_show_char(r)}→{_show_char(h)} ×{n}" for r, h, n in confusions)
            lines.append(f"top confusions ({visible(engine)}): {shown}")
    results = record.results
    for engine in engines:
        bad = [
            r
            for r in worst([r for r in results if r.engine == engine], "cer", WORST_CASES)
            if (r.metrics["cer"] or 0) > 0
        ]
        if bad:
            lines.append(f"worst cases by cer ({visible(engine)}):")
            lines += [f"  {_fmt(r.metrics['cer'])}  {visible(r.id)}  [{r.outcome}]" for r in bad]
    warned = [r for r in results if r.warnings]
    if warned:
        lines.append(f"warnings ({len(warned)} items):")
        for r in warned[:WORST_CASES]:
            lines += [f"  {visible(r.id)}: {visible(w[:150])}" for w in r.warnings]
    errors = record.with_outcome("error")
    if errors:
        lines.append(f"errors ({len(errors)}):")
        for r in errors[:WORST_CASES]:
            lines.append(f"  {visible(r.id)}: {visible('; '.join(r.reasons())[:150])}")
    return lines


def invalid_lines(record: RunRecord) -> list[str]:
    invalid = record.with_outcome("invalid")
    if not invalid:
        return []
    return [f"case files that could not be loaded ({len(invalid)}):"] + [f"  {visible(r.file)}" for r in invalid]


def baseline_lines(view: BaselineView, verbosity: int) -> list[str]:
    """Per engine: how the compared metrics moved against the baseline (means over the
    items compared on them), what is new, what regressed (worst first), and a changed
    engine configuration; and how many items found their record at all."""
    lines = [f"vs baseline {visible(view.path)}: {view.matched} of {view.current} items found their record"]
    lines += [f"  warning: {visible(w)}" for w in view.warnings()]
    for e in view.engines:
        lines.append(f"  {visible(e.engine)}: {e.compared} compared, {e.new} new, {len(e.regressed)} regressed")
        for m in e.moves:
            lines.append(
                f"    {m.metric} mean over {m.n}: {_fmt(m.old)} -> {_fmt(m.new)} ({m.new - m.old:+.4f}, {m.verdict})"
            )
        if e.config_changes:
            lines.append(
                f"    warning: the baseline was recorded with another {visible(e.engine)} configuration: "
                + "; ".join(visible(c) for c in e.config_changes)
            )
        if verbosity >= 0:
            for r in e.regressed[:WORST_CASES]:
                lines.append(f"    regressed: {visible(r.id)}: {visible('; '.join(r.reasons()))}")
            if len(e.regressed) > WORST_CASES:
                lines.append(f"    ... and {len(e.regressed) - WORST_CASES} more regressed cases")
    return lines


def gate_lines(gates: list[GateResult]) -> list[str]:
    if not gates:
        return []
    failed = sum(not g.passed for g in gates)
    return [f"aggregate gates ({len(gates)}, {failed} failed):"] + [f"  {visible(g.message)}" for g in gates]


def dataset_lines(summaries: list[DatasetSummary]) -> list[str]:
    """The dataset evaluator's view of each dataset file: the accounting and its metrics."""
    if not summaries:
        return []
    rows = [
        (
            visible(f"{d.file} [{d.engine}]"),
            [
                str(d.total),
                str(d.evaluated),
                str(d.filtered),
                str(d.skipped),
                _fmt(d.accuracy),
                _fmt(d.ned),
                _fmt(d.ned_similarity),
                f"{d.wall_s:.2f} s",
                "-" if d.inference_mean_ms is None else f"{d.inference_mean_ms:.1f} ms",
            ],
        )
        for d in summaries
    ]
    header = [
        "total",
        "evaluated",
        "filtered",
        "skipped",
        "accuracy",
        "ned",
        "similarity",
        "wall time",
        "inference/img",
    ]
    lines = [
        "datasets (total = evaluated + filtered + skipped; accuracy = exact match; wall time = first item's "
        "start to last item's end):"
    ]
    lines += ["  " + line for line in table(header, rows, "dataset")]
    files: dict[str, list[dict[str, Any]]] = {d.file: d.skipped_entries for d in summaries}
    for file, entries in files.items():
        lines += [f"  skipped: {visible(e['file'])}:{e['line']}: {visible(e['reason'])}" for e in entries[:WORST_CASES]]
        if len(entries) > WORST_CASES:
            lines.append(f"  ... more skipped entries of {visible(file)} in the JSON report (datasets)")
    return lines
