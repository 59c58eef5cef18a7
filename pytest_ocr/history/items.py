"""One item over the commits of a branch, and the items that are flaky: whose output or
outcome changed between runs where nothing that decides them did.

What decides an item is its engine, whose inputs are its fingerprint, and its own inputs,
whose hash the store keeps (cases/inputs.py: the image's bytes, a PDF's page and dpi, the
case as scored): an edited ground truth or a replaced image under the same key is a change
of input, shown by ``item``, never a flaky item.
"""

from __future__ import annotations

from dataclasses import dataclass

from .store import ItemPoint, Store


@dataclass(frozen=True)
class ItemAt:
    """The item in one run, and what differs from its previous run in the history."""

    point: ItemPoint
    changed: tuple[str, ...]  # "input", "output", "outcome", and each metric whose value differs


@dataclass(frozen=True)
class ItemHistory:
    suite: str
    key: str
    points: tuple[ItemAt, ...]  # oldest first

    def changes(self) -> list[ItemAt]:
        return [p for p in self.points if p.changed]


def item_history(store: Store, suite: str, key: str, branch: str | None, last: int) -> ItemHistory:
    """The item in the suite's latest ``last`` runs that have it (on ``branch``, when given)."""
    found = [
        p for p in store.item_values(suite, key, _enough(last, branch)) if branch is None or p.run.branch == branch
    ]
    found = list(reversed(found[:last]))
    points = []
    for i, point in enumerate(found):
        points.append(ItemAt(point, _changed(found[i - 1], point) if i else ()))
    return ItemHistory(suite, key, tuple(points))


def _enough(last: int, branch: str | None) -> int:
    return last if branch is None else 10 * last  # runs of other branches are read and left out


def _changed(before: ItemPoint, after: ItemPoint) -> tuple[str, ...]:
    a, b = before.item, after.item
    changed = []
    if a.input_hash != b.input_hash:
        changed.append("input")
    if a.output_hash != b.output_hash:
        changed.append("output")
    if a.outcome != b.outcome:
        changed.append("outcome")
    changed += [m for m in sorted(set(a.values) | set(b.values)) if a.values.get(m) != b.values.get(m)]
    return tuple(changed)


@dataclass(frozen=True)
class Flip:
    """An item's output or outcome changed between two runs with the same engine fingerprint
    and the same inputs."""

    before_run: int
    after_run: int
    before_commit: str | None
    after_commit: str | None
    changed: tuple[str, ...]  # "output" and/or "outcome"
    outcomes: tuple[str, str]


@dataclass(frozen=True)
class FlakyItem:
    key: str
    engine: str
    compared: int  # pairs of consecutive runs of the item with the same fingerprint and inputs
    flips: tuple[Flip, ...]


def flaky(store: Store, suite: str, branch: str | None, last: int) -> list[FlakyItem]:
    """Items that flipped, over the suite's latest ``last`` runs (every attempt: a rerun of
    a commit is where a flaky item shows), most flips first."""
    runs = sorted(store.runs(suite, branch, last), key=lambda r: r.id)
    fingerprints = {(e.run_id, e.engine): e.fingerprint_id for e in store.engines([r.id for r in runs])}
    # key -> run, commit, (fingerprint, input hash), output hash, outcome
    previous: dict[str, tuple[int, str | None, tuple[str, str | None], str | None, str]] = {}
    compared: dict[str, int] = {}
    flips: dict[str, list[Flip]] = {}
    engines: dict[str, str] = {}
    by_id = {run.id: run for run in runs}
    for item in store.items_of(list(by_id)):  # by run, oldest first
        run = by_id[item.run_id]
        if item.engine is None:
            continue
        fingerprint = fingerprints.get((run.id, item.engine), "")
        held = previous.get(item.key)
        given = (fingerprint, item.input_hash)
        previous[item.key] = (run.id, run.commit, given, item.output_hash, item.outcome)
        engines[item.key] = item.engine
        if held is None or held[2] != given or not fingerprint:
            continue
        compared[item.key] = compared.get(item.key, 0) + 1
        changed = tuple(
            name
            for name, old, new in (("output", held[3], item.output_hash), ("outcome", held[4], item.outcome))
            if old != new
        )
        if changed:
            flips.setdefault(item.key, []).append(
                Flip(held[0], run.id, held[1], run.commit, changed, (held[4], item.outcome))
            )
    found = [FlakyItem(key, engines[key], compared[key], tuple(f)) for key, f in flips.items()]
    return sorted(found, key=lambda f: (-len(f.flips), f.key))
