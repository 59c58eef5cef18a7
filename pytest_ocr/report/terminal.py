"""The OCR section of pytest's terminal summary."""

from __future__ import annotations

from ..results import CaseResult, EngineSummary, worst

HEADLINE_METRICS = ("cer", "wer")
WORST_CASES = 5


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def summary_lines(
    results: list[CaseResult], summaries: dict[str, EngineSummary], verbosity: int, thresholded: set[str]
) -> list[str]:
    """Lines of the summary: engines side by side, then the worst cases per engine.

    Shown metrics: CER and WER, plus any metric some case has a threshold on.
    ``verbosity`` < 0 (-q) drops the worst-case listing.
    """
    engines = list(summaries)
    shown = [m for m in HEADLINE_METRICS] + sorted(thresholded - set(HEADLINE_METRICS))
    rows: list[tuple[str, list[str]]] = [
        ("cases", [str(summaries[e].cases) for e in engines]),
        ("passed", [str(summaries[e].passed) for e in engines]),
        ("failed", [str(summaries[e].failed) for e in engines]),
        ("errors", [str(summaries[e].errors) for e in engines]),
    ]
    for metric in shown:
        if not any(metric in summaries[e].metrics for e in engines):
            continue
        for kind in ("macro", "micro"):
            cells = []
            for e in engines:
                agg = summaries[e].metrics.get(metric)
                cells.append(_fmt(getattr(agg, kind) if agg else None))
            rows.append((f"{metric} {kind}", cells))

    label_width = max(len(label) for label, _ in rows)
    widths = [max(len(e), *(len(cells[i]) for _, cells in rows)) for i, e in enumerate(engines)]
    lines = ["engine".ljust(label_width) + "  " + "  ".join(e.rjust(w) for e, w in zip(engines, widths))]
    for label, cells in rows:
        lines.append(label.ljust(label_width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths)))
    lines.append("macro = mean over cases; micro = pooled errors / pooled reference length")

    if verbosity >= 0:
        for engine in engines:
            bad = [r for r in worst([r for r in results if r.engine == engine], "cer", WORST_CASES)
                   if r.metrics["cer"] > 0]
            if bad:
                lines.append(f"worst cases by cer ({engine}):")
                for r in bad:
                    lines.append(f"  {_fmt(r.metrics['cer'])}  {r.id}  [{r.outcome}]")
        errors = [r for r in results if r.outcome == "error"]
        if errors:
            lines.append(f"errors ({len(errors)}):")
            for r in errors[:WORST_CASES]:
                first_line = (r.error or "").strip().splitlines()[0] if r.error else ""
                lines.append(f"  {r.id}: {first_line[:150]}")
    return lines
