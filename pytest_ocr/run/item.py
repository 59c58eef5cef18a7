"""One item from its case to its verdict, without pytest: image -> recognition -> scores -> verdict.

Two halves, which the plugin runs in an item's two phases (plugin/executor.py): ``recognise``
in its setup (an error there is the item's error, a confidence below the case's minimum
filters it out) and ``judge`` in its call (a verdict that did not pass is its failure).
``pytest-ocr score --case`` takes its output from a file (``given``) and judges it with the
same ``judge``: the numbers the case's item reports. Each half fills the item's ``ItemState``
as it goes, so a result made after an error holds everything got before it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Imported when an item first runs (plugin/executor.py) or ``score --case`` scores one, never
# with the plugin: what the pipeline runs is imported here once, not again for every item.
from ..cases.inputs import input_hash as hashed_inputs
from ..cases.inputs import read_inputs
from ..engines.cache import file_sha256
from ..engines.recognize import Timed, recognize, stored
from ..scoring import facts
from ..scoring.repeats import combine
from ..scoring.score import Evaluation, evaluate, extract
from ..scoring.tolerance import tolerances_for
from ..scoring.verdict import decide, filtered_reason

if TYPE_CHECKING:
    from ..cases.inputs import Inputs
    from ..cases.model import Case
    from ..cases.rules import Tolerance
    from ..engines import Engine, Recognition
    from ..engines.cache import OutputCache
    from ..scoring.extract import Extracted
    from ..scoring.facts import FactRecord
    from ..scoring.tolerance import ItemComparison
    from ..scoring.verdict import Verdict
    from .result import CaseResult


@dataclass
class ItemState:
    """What one item has got so far, phase by phase."""

    started: float  # Unix time
    clock: float  # perf_counter at the start
    inputs: Inputs | None = None
    image: Path | None = None  # what the engine reads: the case's image, or its PDF's page rasterised
    rasterise_s: float | None = None  # rendering its PDF's page took, if this item rendered it
    fingerprint: dict[str, Any] | None = None
    timed: Timed | None = None
    filtered: str | None = None
    extracted: Extracted | None = None
    repeats: list[Timed] | None = None  # every recognition, the first included, when repeated
    result: CaseResult | None = None

    @classmethod
    def start(cls) -> ItemState:
        return cls(time.time(), time.perf_counter())


# Gets the item's first recognition from whoever keeps several in flight, given the way to
# recognise any case and the engine's concurrency (the plugin's prefetcher).
Ahead = Callable[[Callable[["Case"], "Timed"], int], "Timed"]


def recognise(
    state: ItemState,
    case: Case,
    name: str,
    engine: Callable[[], Engine],
    image_of: Callable[[Case], tuple[Path, float | None]],
    *,
    cache: OutputCache | None = None,
    refresh: bool = False,
    repeat: int = 1,
    ahead: Ahead | None = None,
) -> None:
    """The inputs read and engine ``name``'s output(s) got, into ``state``; stops with
    ``state.filtered`` set when the output's confidence is below the case's minimum.
    ``engine`` makes the engine (after the inputs are read: their error comes first),
    ``image_of`` gives the image it reads for a case and the seconds rendering it took."""
    state.inputs = read_inputs(case)
    made = engine()
    state.fingerprint = made.fingerprint()
    if made.stored:  # outputs made elsewhere: every stored one, as repeats
        outputs = stored(made, name, case.image, case.page or 1)
        state.timed = outputs[0]
        state.repeats = outputs if len(outputs) > 1 else None
        state.extracted = extract(case, state.timed.recognition)
        return
    state.image, state.rasterise_s = image_of(case)
    run = functools.partial(recognize, made, name, cache=cache, fingerprint=state.fingerprint, refresh=refresh)
    concurrency = made.concurrency
    if ahead is not None and isinstance(concurrency, int) and concurrency > 1:
        state.timed = ahead(lambda other: run(image_of(other)[0]), concurrency)
    else:
        state.timed = run(state.image)
    state.filtered = filtered_reason(case.min_confidence, state.timed.recognition.confidence)
    if state.filtered:
        return
    state.extracted = extract(case, state.timed.recognition)
    if repeat > 1:
        state.repeats = [state.timed, *_again(made, name, state.image, repeat - 1, concurrency)]


def _again(engine: Engine, name: str, image: Path, times: int, concurrency: object) -> list[Timed]:
    """The item's further recognitions, never from or into the cache (each is a new
    draw), at once as far as the engine takes requests in parallel."""
    from concurrent.futures import ThreadPoolExecutor

    again = functools.partial(recognize, engine, name, image)
    if not isinstance(concurrency, int) or concurrency < 2:
        return [again() for _ in range(times)]
    with ThreadPoolExecutor(min(concurrency, times)) as pool:
        return list(pool.map(lambda _: again(), range(times)))


def input_hash(state: ItemState, case: Case) -> str | None:
    """The item's input hash (cases/inputs.py), from the image hash the output cache took for
    its key, else (no cache, or the engine failed) hashing the image once; None when its
    inputs or its image could not be read."""
    timed = state.timed
    if state.inputs is None:
        return None
    if timed is not None and timed.stored:  # the engine read no image: its outputs are its fingerprint
        return hashed_inputs(case, state.inputs, None)
    if state.image is None:
        return None
    digest = timed.image_sha256 if timed is not None else None
    if digest is None:
        try:
            digest = file_sha256(state.image)
        except OSError:
            return None
    return hashed_inputs(case, state.inputs, digest)


def given(state: ItemState, case: Case, recognition: Recognition) -> None:
    """The inputs read and an output made elsewhere taken as the item's, into ``state``."""
    state.inputs = read_inputs(case)
    state.timed = Timed(recognition, 0.0, stored=True)
    state.extracted = extract(case, recognition)


@dataclass(frozen=True)
class Judged:
    """What an item's output(s) scored, and the verdict on them."""

    evaluation: Evaluation  # the repeats combined, when repeated
    repeats: dict[str, Any] | None
    facts: list[FactRecord] | None  # the case's checks, when it has any
    tolerances: dict[str, Tolerance]
    comparison: ItemComparison | None  # against the baseline, when there is one
    verdict: Verdict


# An item's values against the baseline: (metrics, tolerances, facts, repeats) -> its comparison.
Compare = Callable[
    [dict[str, float | None], dict[str, "Tolerance"], "Sequence[FactRecord] | None", "dict[str, Any] | None"],
    "ItemComparison",
]


def judge(
    case: Case,
    state: ItemState,
    named: Callable[[Path], str],
    compare: Compare | None = None,
    regressions_fail: bool = True,
) -> Judged:
    """The item's output(s) in ``state`` scored, compared with the baseline and judged;
    ``named`` names a path as results name it."""
    assert state.timed is not None and state.inputs is not None and state.extracted is not None
    inputs = state.inputs
    evaluation = evaluate(case, inputs, state.timed.recognition, state.extracted)
    evaluations = [evaluation]
    repeats = None
    if state.repeats:
        evaluations += [evaluate(case, inputs, t.recognition, extract(case, t.recognition)) for t in state.repeats[1:]]
        combined = combine(case, evaluations, [t.recognition.text for t in state.repeats])
        evaluation = Evaluation(combined.metrics, combined.details, combined.checks, combined.warnings)
        repeats = combined.repeats
    fact_records = facts.records(case, [e.facts for e in evaluations], named) if case.checks else None
    tolerances = tolerances_for(case.regression, [t.metric for t in case.thresholds])
    comparison = compare(evaluation.metrics, tolerances, fact_records, repeats) if compare is not None else None
    verdict = decide(evaluation.checks, comparison, regressions_fail=regressions_fail)
    return Judged(evaluation, repeats, fact_records, tolerances, comparison, verdict)
