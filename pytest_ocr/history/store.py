"""The history store: runs recorded into it, and what later commands read back from it.

One code path for SQLite and PostgreSQL (SQLAlchemy Core). Writers (``Store.open``) serialise
on the store's write lock for one transaction, in which a run's attempt number is assigned
(the count of its suite's runs of its commit, plus one): four CI jobs recording the same
commit at once get attempts 1 to 4, each run once. On SQLite the lock is the database's own
(WAL, and ``BEGIN IMMEDIATE`` so that a writer waits for the lock before it reads the attempt
number), on PostgreSQL a transaction-level advisory lock. Waiting for it, or for a server to
answer, is bounded by ``--ocr-max-lock-wait-s``; past it the run is not recorded, with one
line saying why.

Readers (``Store.read``: the history commands, history baselines) never write: an SQLite file
is opened so that SQLite refuses every write (``query_only``: nothing created or migrated,
its journal mode left as it is; a store in a read-only directory or file is read), a
PostgreSQL session is read-only, and a store of an older schema is read as it is. They take
no write lock, so they do not wait for a writer (WAL readers see the last committed run);
what they could still wait for (a lock another program holds on the whole database or a
table) is bounded by the same wait.

Every value read back is checked to be of the type written (rows.py): a store that anything
else wrote or edited is refused in one line naming the table, the row and the column.

A run's item rows are made before the lock is taken, so the lock is held only to write.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import struct
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy import ColumnElement, Connection, Engine, create_engine, event, func, inspect, null, select
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from .. import __version__, limits
from ..errors import OcrError, shortened
from ..metrics.registry import Scorer, first_scorers
from ..run.aggregate import MetricAggregate, Summary, metric_order
from ..run.result import OUTCOMES
from ..storable import json_safe
from . import counts as counts_coded
from . import migrations, provenance, schema
from .git import is_commit_id, ref_problem
from .rows import Row, RowError, is_whole, is_whole_map, quoted
from .url import HistoryUrl

if TYPE_CHECKING:
    from ..run.record import RunRecord
    from ..run.result import CaseResult
    from .provenance import Provenance
    from .url import HistoryTarget

ADVISORY_LOCK = 0x7079_6F63_7268  # "pyocrh": the PostgreSQL advisory lock writers take
HASH_BYTES = 8
NO_ENGINE = ""  # the engine column of a case file that could not be loaded


class StoreError(OcrError):
    """The store could not be opened, read or written; the message says why, without credentials."""


@dataclass(frozen=True)
class RecordedRun:
    id: int
    suite: str
    commit: str | None
    attempt: int
    status: str
    items: int

    def text(self) -> str:
        commit = f"commit {self.commit[:12]}, attempt {self.attempt}" if self.commit else "no commit"
        return f"run {self.id} of suite {self.suite} ({commit}, {self.status}, {self.items} items)"


@dataclass(frozen=True)
class RunRow:
    id: int
    suite: str
    commit: str | None
    branch: str | None
    parents: tuple[str, ...]
    commit_time: str | None
    attempt: int
    started_at: str
    finished_at: str
    duration_s: float
    status: str
    shards: int
    ci: str | None
    job: str | None
    run_url: str | None
    pytest_ocr: str
    scorers: dict[str, str]  # package -> version
    summary: dict[str, Any]  # counts, gates, datasets and the run's own facts (workers, interruption, ...)
    recorded_at: str
    # metric (and "facts") -> what scored its values; {} for a run recorded before they were
    # (schema version 1): every scorer at its first version (``scorer``)
    metric_scorers: dict[str, Scorer] = field(default_factory=dict)

    def scorer(self, metric: str) -> Scorer | None:
        """What scored the run's values of ``metric`` (None: a metric pytest-ocr does not know)."""
        found = self.metric_scorers.get(metric)
        if found is not None or self.metric_scorers:
            return found
        return first_scorers([metric]).get(metric)

    @property
    def counts(self) -> dict[str, int]:
        """Its items by outcome (whole numbers: checked as read)."""
        return dict(self.summary.get("counts") or {})

    @property
    def workers(self) -> int:
        """The pytest-xdist workers it ran on (0: none; checked as read)."""
        return int(self.summary.get("workers") or 0)


@dataclass(frozen=True)
class AggregateRow:
    run_id: int
    engine: str
    scope: str  # "": all the engine's items; "tag:NAME" / "group:NAME"
    metric: str
    kind: str  # macro | micro
    value: float | None
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class EngineRow:
    run_id: int
    engine: str
    fingerprint_id: str
    fingerprint: dict[str, Any]


@dataclass(frozen=True)
class ItemRow:
    run_id: int
    key: str
    engine: str | None
    outcome: str
    output_hash: str | None  # hex
    input_hash: str | None  # hex; None: its inputs were not read
    cached: bool
    values: dict[str, float | None]
    spread: dict[str, float | None] | None  # max - min over repeats; None: recognised once
    # What a baseline from history compares beyond the values (history/baseline.py):
    repeats: Repeats | None  # None: recognised once
    counts: dict[str, dict[str, float]]  # metric -> its counts (what micro averages pool)
    held: tuple[str, ...] | None  # the ids of the checks that held; None: the case has no checks


@dataclass(frozen=True)
class Repeats:
    """An item's repeats as a comparison and a summary read them (scoring/repeats.py)."""

    values: tuple[dict[str, float | None], ...]  # each repeat's metric values
    unstable: bool  # whether their outputs differed
    identical: float | None  # the share of the most common output
    pairwise_cer: float | None  # the mean CER between repeats


@dataclass(frozen=True)
class ItemPoint:
    """An item in one run: the run, and its row there."""

    run: RunRow
    item: ItemRow


@dataclass(frozen=True)
class Wait:
    """How long the store waits for another process's lock (or a server's answer), and the
    option that sets it, named when the wait is over."""

    seconds: float
    option: str = limits.OPTIONS["max_lock_wait_s"]

    def over(self) -> str:
        return f"another process kept the store locked for longer than {self.seconds:g} s ({self.option})"


class Store:
    def __init__(
        self, engine: Engine, where: HistoryUrl, wait: Wait | None = None, runs: Sequence[ColumnElement[Any]] = ()
    ) -> None:
        self.engine = engine
        self.where = where
        self.wait = wait or Wait(limits.active().max_lock_wait_s)
        # the runs table's columns as read: a store of an older schema, read as it is, lacks the
        # columns added since (NULL in every row, as its migration would add them)
        self.runs_columns: tuple[ColumnElement[Any], ...] = tuple(runs) or tuple(schema.runs.c)

    @classmethod
    def open(cls, where: HistoryUrl, wait: Wait | None = None) -> Store:
        """The store at ``where`` to record in, created or migrated to this code's schema. Raises StoreError."""
        wait = wait or Wait(limits.active().max_lock_wait_s)
        with _errors(where, wait):
            store = cls(_engine(where, wait), where, wait)
            try:
                with store._writing() as connection:
                    migrations.migrate(connection)
            except BaseException:
                store.close()
                raise
        return store

    @classmethod
    def read(cls, where: HistoryUrl, wait: Wait | None = None) -> Store:
        """The store at ``where`` to read only: nothing in it is created, migrated or locked for
        writing, and a store of an older schema is read as it is. Raises StoreError for a
        database that holds no store, or a store newer than this code."""
        wait = wait or Wait(limits.active().max_lock_wait_s)
        with _errors(where, wait):
            engine = _engine(where, wait, read_only=True)
            try:
                with engine.connect() as connection, connection.begin():
                    migrations.readable(connection)
                    held = {column["name"] for column in inspect(connection).get_columns(schema.runs.name)}
            except BaseException:
                engine.dispose()
                raise
        runs = [c if c.name in held else null().label(c.name) for c in schema.runs.c]
        return cls(engine, where, wait, runs)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        """A transaction holding the store's write lock."""
        with self.engine.connect().execution_options(history_write=True) as connection, connection.begin():
            if self.where.backend == "postgresql":
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({ADVISORY_LOCK})")
            yield connection

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with _errors(self.where, self.wait), self.engine.connect() as connection, connection.begin():
            yield connection

    # -- writing --------------------------------------------------------------------

    def record(self, record: RunRecord, origin: Provenance, suite: str) -> RecordedRun:
        """``record`` as a run of ``suite``: the next attempt of its commit. Raises StoreError."""
        rows = _Rows.of(record)
        run = _run_row(record, origin, suite)
        with _errors(self.where, self.wait), self._writing() as connection:
            attempt = _next_attempt(connection, suite, origin.commit)
            inserted = connection.execute(schema.runs.insert().values(**run, attempt=attempt))
            run_id = int(inserted.inserted_primary_key[0])  # type: ignore[index]  # never None after an insert
            if rows.engines:
                connection.execute(schema.engines.insert(), [{"run_id": run_id, **e} for e in rows.engines])
            if rows.aggregates:
                connection.execute(schema.aggregates.insert(), [{"run_id": run_id, **a} for a in rows.aggregates])
            if rows.metrics:
                connection.execute(
                    schema.run_metrics.insert(),
                    [
                        {"run_id": run_id, "engine": e, "metrics": " ".join(m), "counts": " ".join(rows.counts[e])}
                        for e, m in rows.metrics.items()
                    ],
                )
            ids = _key_ids(connection, suite, rows.keys)
            if rows.items:
                items = [{**item, "run_id": run_id, "key_id": ids[item["key_id"]]} for item in rows.items]
                connection.execute(schema.items.insert(), items)
        return RecordedRun(run_id, suite, origin.commit, attempt, record.run.status, len(rows.items))

    # -- reading: what trend, item, flaky and history: baselines read ------------------

    def complete_at(self, suite: str, commits: Sequence[str]) -> dict[str, RunRow]:
        """The latest complete attempt of the suite at each of these commits that has one."""
        r = schema.runs.c
        found: dict[str, RunRow] = {}
        with self._reading() as connection:
            for start in range(0, len(commits), 500):  # bound parameters per query
                part = list(commits[start : start + 500])
                query = select(*self.runs_columns).where(r.suite == suite, r.commit.in_(part), r.status == "complete")
                for row in connection.execute(query.order_by(r.id)):  # a later attempt has a later id
                    found[row.commit] = _run(row)
        return found

    def runs(self, suite: str, branch: str | None = None, limit: int = 100) -> list[RunRow]:
        """The suite's latest runs (on ``branch``, when given), newest first."""
        query = select(*self.runs_columns).where(schema.runs.c.suite == suite)
        if branch is not None:
            query = query.where(schema.runs.c.branch == branch)
        with self._reading() as connection:
            return [_run(row) for row in connection.execute(query.order_by(schema.runs.c.id.desc()).limit(limit))]

    def suites(self) -> list[str]:
        """Every suite the store holds runs of, by name."""
        r = schema.runs.c
        with self._reading() as connection:
            found = connection.execute(select(r.suite).distinct().order_by(r.suite)).scalars()
            return [Row("runs", "a run", {"suite": suite}).text("suite") for suite in found]

    def run(self, run_id: int) -> RunRow | None:
        """One run, by its id."""
        with self._reading() as connection:
            row = connection.execute(select(*self.runs_columns).where(schema.runs.c.id == run_id)).first()
            return _run(row) if row is not None else None

    def delete(self, run_ids: Sequence[int]) -> int:
        """These runs removed with their rows (engines, aggregates, items); how many were."""
        if not run_ids:
            return 0
        with _errors(self.where, self.wait), self._writing() as connection:
            removed = connection.execute(schema.runs.delete().where(schema.runs.c.id.in_(list(run_ids))))
            return int(removed.rowcount)

    def latest_complete(self, suite: str, branch: str) -> RunRow | None:
        """The latest complete run of the suite on ``branch``."""
        return self._latest_complete(suite, schema.runs.c.branch == branch)

    def run_of(self, suite: str, commit: str) -> RunRow | None:
        """The latest complete attempt of the suite at ``commit`` (a merge-base's run)."""
        return self._latest_complete(suite, schema.runs.c.commit == commit)

    def _latest_complete(self, suite: str, condition: ColumnElement[bool]) -> RunRow | None:
        r = schema.runs.c
        query = select(*self.runs_columns).where(r.suite == suite, condition, r.status == "complete")
        with self._reading() as connection:  # a later attempt of a commit has a later id
            row = connection.execute(query.order_by(r.id.desc()).limit(1)).first()
            return _run(row) if row is not None else None

    def aggregates(self, run_ids: Sequence[int]) -> list[AggregateRow]:
        """The aggregates of these runs, by run, engine, scope, metric and kind."""
        a = schema.aggregates.c
        query = select(schema.aggregates).where(a.run_id.in_(list(run_ids)))
        with self._reading() as connection:
            rows = connection.execute(query.order_by(a.run_id, a.engine, a.scope, a.metric, a.kind))
            return [_aggregate(row) for row in rows]

    def engines(self, run_ids: Sequence[int]) -> list[EngineRow]:
        """The engines of these runs, with their fingerprints."""
        e = schema.engines.c
        query = select(schema.engines).where(e.run_id.in_(list(run_ids))).order_by(e.run_id, e.engine)
        with self._reading() as connection:
            return [_engine_row(row) for row in connection.execute(query)]

    def items(self, run_id: int) -> list[ItemRow]:
        """Every item of a run, by key."""
        i, k = schema.items.c, schema.item_keys.c
        query = (
            select(i.run_id, k.key, k.engine, *_ITEM)
            .join_from(schema.items, schema.item_keys, i.key_id == k.id)
            .where(i.run_id == run_id)
            .order_by(k.key)
        )
        with self._reading() as connection:
            order = _metric_orders(connection, [run_id])
            return [_item(row, order) for row in connection.execute(query)]

    def items_of(self, run_ids: Sequence[int]) -> list[ItemRow]:
        """Every item of these runs in one read, by run and key (regressions --items, flaky)."""
        i, k = schema.items.c, schema.item_keys.c
        query = (
            select(i.run_id, k.key, k.engine, *_ITEM)
            .join_from(schema.items, schema.item_keys, i.key_id == k.id)
            .where(i.run_id.in_(list(run_ids)))
            .order_by(i.run_id, k.key)
        )
        with self._reading() as connection:
            order = _metric_orders(connection, run_ids)
            return [_item(row, order) for row in connection.execute(query)]

    def item_values(self, suite: str, key: str, limit: int = 100) -> list[ItemPoint]:
        """One item over the suite's latest runs that have it, newest first."""
        i, k, r = schema.items.c, schema.item_keys.c, schema.runs.c
        query = (
            select(*self.runs_columns, k.key, k.engine, *_ITEM)
            .join_from(schema.items, schema.item_keys, i.key_id == k.id)
            .join(schema.runs, r.id == i.run_id)
            .where(k.suite == suite, k.key == key)
            .order_by(i.run_id.desc())
            .limit(limit)
        )
        with self._reading() as connection:
            rows = list(connection.execute(query))
            runs = [_run(row) for row in rows]
            order = _metric_orders(connection, [run.id for run in runs])
            return [ItemPoint(run, _item(row, order, run.id)) for run, row in zip(runs, rows, strict=True)]


# -- a run as rows ----------------------------------------------------------------------


@dataclass
class _Rows:
    keys: dict[str, str | None]  # key -> engine, in key order
    items: list[dict[str, Any]]  # key_id holds the key until the ids are known
    metrics: dict[str, list[str]]  # engine -> the order its items' values are packed in
    counts: dict[str, list[str]]  # engine -> the order its items' counts are coded in ("metric:name")
    aggregates: list[dict[str, Any]]
    engines: list[dict[str, Any]]

    @classmethod
    def of(cls, record: RunRecord) -> _Rows:
        by_engine: dict[str, list[CaseResult]] = defaultdict(list)
        for r in record.results:
            by_engine[r.engine or NO_ENGINE].append(r)
        metrics = {
            engine: sorted({m for r in results for m in r.metrics}, key=metric_order)
            for engine, results in by_engine.items()
        }
        counted = {  # per engine, the names of each metric's counts, in the order they are coded
            engine: [(m, list(dict.fromkeys(n for r in by_engine[engine] for n in _counts_of(r, m)))) for m in order]
            for engine, order in metrics.items()
        }
        codes = {outcome: i for i, outcome in enumerate(OUTCOMES)}
        items = []
        for r in record.results:
            order = metrics[r.engine or NO_ENGINE]
            repeats = r.repeats.get("metrics") if r.repeats else None
            alike = [r.repeats.get("identical"), r.repeats.get("pairwise_cer")] if r.repeats else []
            counts = [
                value for m, names in counted[r.engine or NO_ENGINE] for value in map(_counts_of(r, m).get, names)
            ]
            items.append(
                {
                    "key_id": r.key,
                    "outcome": codes[r.outcome],
                    "output_hash": output_hash(r.prediction),
                    "input_hash": bytes.fromhex(r.input_hash) if r.input_hash is not None else None,
                    "cached": r.cached,
                    "values": _pack([r.metrics.get(m) for m in order]),
                    "repeats": _pack([*alike, *(each.get(m) for each in repeats for m in order)])
                    if repeats and order
                    else None,
                    "unstable": bool(r.repeats.get("unstable")) if r.repeats else None,
                    "counts": counts_coded.encode(counts) if any(c is not None for c in counts) else None,
                    "facts": _json([f.id for f in r.facts if f.passed]) if r.facts is not None else None,
                }
            )
        return cls(
            {r.key: r.engine for r in record.results},
            items,
            {engine: names for engine, names in metrics.items() if names},
            {engine: [f"{m}:{name}" for m, names in pairs for name in names] for engine, pairs in counted.items()},
            _aggregates(record.summaries),
            [
                {"engine": name, "fingerprint_id": str(f.get("fingerprint_id", "")), "fingerprint": _json(f)}
                for name, f in record.engines.items()
            ],
        )


def output_hash(text: str | None) -> bytes | None:
    """An output's identity in the store: 8 bytes of its BLAKE2b (never the text)."""
    if text is None:
        return None
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=HASH_BYTES).digest()


def _counts_of(result: CaseResult, metric: str) -> dict[str, float]:
    return (result.details.get(metric) or {}).get("counts") or {}


def _pack(values: Sequence[float | None]) -> bytes:
    return struct.pack(f"<{len(values)}d", *(math.nan if v is None else v for v in values))


def _unpack(data: bytes, names: Sequence[str]) -> dict[str, float | None]:
    values = struct.unpack(f"<{len(data) // 8}d", data)
    return {name: None if math.isnan(v) else v for name, v in zip(names, values, strict=True)}


def _aggregates(summaries: Mapping[str, Summary]) -> list[dict[str, Any]]:
    rows = []
    for engine, summary in summaries.items():
        for scope, part in (("", summary), *summary.groups.items()):
            for metric, aggregate in part.metrics.items():
                rows += _aggregate_rows(engine, scope, metric, aggregate)
            if part.facts is not None and part.facts.score is not None:
                low, high = part.facts.ci95 or (None, None)
                rows.append(_row(engine, scope, "facts", "macro", part.facts.score, low, high, part.facts.facts))
    return rows


def _aggregate_rows(engine: str, scope: str, metric: str, a: MetricAggregate) -> list[dict[str, Any]]:
    low, high = a.ci95 or (None, None)
    return [
        _row(engine, scope, metric, "macro", a.macro, low, high, a.n),
        _row(engine, scope, metric, "micro", a.micro, None, None, a.n),
    ]


def _row(
    engine: str, scope: str, metric: str, kind: str, value: float | None, low: float | None, high: float | None, n: int
) -> dict[str, Any]:
    finite = [None if x is None or not math.isfinite(x) else float(x) for x in (value, low, high)]
    return {"engine": engine, "scope": scope, "metric": metric, "kind": kind, "n": n} | dict(
        zip(("value", "low", "high"), finite, strict=True)
    )


def _run_row(record: RunRecord, origin: Provenance, suite: str) -> dict[str, Any]:
    run = record.run
    for commit in (origin.commit, *origin.parents):
        if commit is not None and not is_commit_id(commit):  # whatever built the provenance
            raise StoreError(f"not recorded: its commit {shortened(commit, 60)!r} is not a commit id (hex digits)")
    summary = {
        "counts": dict(sorted(record.counts().items())),
        "gates": [g.to_dict() for g in record.gates],
        "datasets": [d.to_dict() for d in record.datasets],
        "not_run": run.not_run,
        "interruption": run.interruption,
        "workers": run.workers,
        "pytest": run.pytest,
        "python": run.python,
        "platform": run.platform,
        "notes": list(origin.notes),
    }
    return {
        "suite": suite,
        "commit": origin.commit,
        "branch": origin.branch,
        "parents": " ".join(origin.parents) or None,
        "commit_time": origin.commit_time,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "duration_s": run.duration_s,
        "status": run.status,
        "shards": run.shards,
        "ci": origin.ci,
        "job": origin.job,
        "run_url": origin.run_url,
        "pytest_ocr": __version__,
        "scorers": _json(provenance.scorer_versions()),
        "metric_scorers": _json({name: scorer.to_dict() for name, scorer in record.scorers.items()}),
        "summary": _json(summary),
        "recorded_at": datetime.now(timezone.utc).isoformat(),
    }


def _json(value: Any) -> str:
    return json.dumps(json_safe(value), sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _next_attempt(connection: Connection, suite: str, commit: str | None) -> int:
    r = schema.runs.c
    same = r.commit.is_(None) if commit is None else r.commit == commit
    found = connection.execute(select(func.max(r.attempt)).where(r.suite == suite, same)).scalar()
    if found is None:
        return 1
    return Row("runs", f"the runs of suite {quoted(suite)}", {"attempt": found}).whole("attempt", 1) + 1


def _key_ids(connection: Connection, suite: str, keys: Mapping[str, str | None]) -> dict[str, int]:
    """Each key's id in the suite, interned now if it is new. The suite's keys are read whole:
    one query, where looking up 20,000 keys a few hundred at a time took 40."""
    k = schema.item_keys.c
    ids = {}
    for row in connection.execute(select(k.key, k.id).where(k.suite == suite)):
        held = Row("item_keys", f"a key of suite {quoted(suite)}", row._mapping)
        ids[held.text("key")] = held.whole("id", 1)
    new = [{"suite": suite, "key": key, "engine": engine} for key, engine in keys.items() if key not in ids]
    if new:
        inserted = connection.execute(schema.item_keys.insert().returning(k.key, k.id), new)
        ids.update((key, key_id) for key, key_id in inserted)
    return ids


# -- rows back as data, each value checked (rows.py) ------------------------------------------


COMMIT = "a commit id (hex digits) or a ref name git accepts"


def _run(row: Any) -> RunRow:
    m = row._mapping
    run_id = Row("runs", "a run", m).whole("id", 1)
    r = Row("runs", f"run {run_id}", m)
    summary = r.json("summary", dict)
    r.check("summary", is_whole_map(summary.get("counts") or {}), "counts of whole numbers from 0", m["summary"])
    r.check("summary", is_whole(summary.get("workers") or 0), "workers a whole number from 0", m["summary"])
    scorers = r.json("scorers", dict)
    r.check("scorers", all(isinstance(v, str) for v in scorers.values()), "versions as text", m["scorers"])
    metric_scorers = r.json("metric_scorers", dict) if m["metric_scorers"] is not None else {}
    scored = all(
        isinstance(v, dict) and isinstance(v.get("scorer"), str) and isinstance(v.get("version"), str)
        for v in metric_scorers.values()
    )
    r.check("metric_scorers", scored, 'objects {"scorer": text, "version": text}', m["metric_scorers"])
    commit, parents = r.optional_text("commit"), tuple((r.optional_text("parents") or "").split())
    # A commit is shown in headings, comments and links. pytest-ocr records hex; an older one
    # recorded PYTEST_OCR_COMMIT as given (a tag, say): a name git accepts as a ref is read, so
    # an older store stays readable, and nothing with a space, a control character or a
    # leading '-' ever is.
    r.check("commit", commit is None or is_commit_id(commit) or ref_problem(commit) is None, COMMIT, commit)
    for parent in parents:
        r.check("parents", is_commit_id(parent), "commit ids (hex digits)", m["parents"])
    return RunRow(
        id=run_id,
        suite=r.text("suite"),
        commit=commit,
        branch=r.optional_text("branch"),
        parents=parents,
        commit_time=r.optional_text("commit_time"),
        attempt=r.whole("attempt", 1),
        started_at=r.text("started_at"),
        finished_at=r.text("finished_at"),
        duration_s=r.real("duration_s"),
        status=r.text("status"),
        shards=r.whole("shards"),
        ci=r.optional_text("ci"),
        job=r.optional_text("job"),
        run_url=r.optional_text("run_url"),
        pytest_ocr=r.text("pytest_ocr"),
        scorers=scorers,
        summary=summary,
        recorded_at=r.text("recorded_at"),
        metric_scorers={k: Scorer.from_dict(v) for k, v in metric_scorers.items()},
    )


def _aggregate(row: Any) -> AggregateRow:
    m = row._mapping
    run = Row("aggregates", "an aggregate", m).whole("run_id", 1)
    named = Row("aggregates", f"an aggregate of run {run}", m)
    engine, metric = named.text("engine"), named.text("metric")
    a = Row("aggregates", f"run {run}, engine {quoted(engine)}, metric {quoted(metric)}", m)
    return AggregateRow(
        run_id=run,
        engine=engine,
        scope=a.text("scope"),
        metric=metric,
        kind=a.text("kind"),
        value=a.optional_real("value"),
        low=a.optional_real("low"),
        high=a.optional_real("high"),
        n=a.whole("n"),
    )


def _engine_row(row: Any) -> EngineRow:
    m = row._mapping
    run = Row("engines", "an engine", m).whole("run_id", 1)
    engine = Row("engines", f"an engine of run {run}", m).text("engine")
    e = Row("engines", f"run {run}, engine {quoted(engine)}", m)
    return EngineRow(run, engine, e.text("fingerprint_id"), e.json("fingerprint", dict))


_ITEM = (
    schema.items.c.outcome,
    schema.items.c.output_hash,
    schema.items.c.input_hash,
    schema.items.c.cached,
    schema.items.c["values"],
    schema.items.c.repeats,
    schema.items.c.unstable,
    schema.items.c.counts,
    schema.items.c.facts,
)

Orders = Mapping[tuple[int, str], tuple[list[str], list[tuple[str, str]]]]


def _metric_orders(connection: Connection, run_ids: Iterable[int]) -> Orders:
    """Per run and engine, the order of its items' packed values and of their coded counts."""
    m = schema.run_metrics.c
    orders = {}
    for row in connection.execute(select(schema.run_metrics).where(m.run_id.in_(sorted(set(run_ids))))):
        run = Row("run_metrics", "a run's metrics", row._mapping).whole("run_id", 1)
        engine = Row("run_metrics", f"the metrics of run {run}", row._mapping).text("engine")
        r = Row("run_metrics", f"run {run}, engine {quoted(engine)}", row._mapping)
        counted = r.text("counts").split()
        r.check("counts", all(":" in c for c in counted), "METRIC:NAME words", row.counts)
        orders[run, engine] = (r.text("metrics").split(), [(c.split(":", 1)[0], c.split(":", 1)[1]) for c in counted])
    return orders


def _item(row: Any, orders: Orders, run_id: int | None = None) -> ItemRow:
    m = row._mapping
    run = Row("items", "an item", m).whole("run_id", 1) if run_id is None else run_id
    keyed = Row("item_keys", f"an item of run {run}", m)
    key, engine = keyed.text("key"), keyed.optional_text("engine")
    r = Row("items", f"run {run}, item {quoted(key)}", m)
    names, counted = orders.get((run, engine or NO_ENGINE), ([], []))
    values = r.blob("values", 8 * len(names))
    r.check("values", values is not None, f"{8 * len(names)} bytes", values)
    repeats = None
    data = r.blob("repeats")
    if data is not None and names:
        each = 8 * len(names)
        r.check("repeats", len(data) >= 16 and (len(data) - 16) % each == 0, f"16 + a multiple of {each} bytes", data)
        alike = _unpack(data[:16], ("identical", "pairwise_cer"))
        repeated = tuple(_unpack(data[start : start + each], names) for start in range(16, len(data), each))
        repeats = Repeats(repeated, bool(m["unstable"]), alike["identical"], alike["pairwise_cer"])
    counts: dict[str, dict[str, float]] = {}
    coded = r.blob("counts")
    if coded is not None:
        try:
            decoded = counts_coded.decode(coded)
        except ValueError:
            decoded = []
        r.check("counts", len(decoded) == len(counted), f"{len(counted)} coded counts", coded)
        for (metric, name), value in zip(counted, decoded, strict=True):
            if value is not None:
                counts.setdefault(metric, {})[name] = value
    held = r.json("facts", list) if m["facts"] is not None else None
    r.check("facts", held is None or all(isinstance(i, str) for i in held), "a JSON array of check ids", m["facts"])
    output_hash, input_hash = r.blob("output_hash", HASH_BYTES), r.blob("input_hash", HASH_BYTES)
    return ItemRow(
        run_id=run,
        key=key,
        engine=engine,
        outcome=OUTCOMES[r.code("outcome", len(OUTCOMES), "an outcome's code")],
        output_hash=output_hash.hex() if output_hash is not None else None,
        input_hash=input_hash.hex() if input_hash is not None else None,
        cached=bool(m["cached"]),
        values=_unpack(values or b"", names),
        spread=_spread(repeats.values, names) if repeats is not None else None,
        repeats=repeats,
        counts=counts,
        held=tuple(held) if held is not None else None,
    )


def _spread(repeats: Sequence[Mapping[str, float | None]], names: Sequence[str]) -> dict[str, float | None]:
    """Each metric's max - min over the repeats (None: a repeat without its value)."""
    spread: dict[str, float | None] = {}
    for name in names:
        found = [v for v in (each[name] for each in repeats) if v is not None]
        spread[name] = max(found) - min(found) if len(found) == len(repeats) else None
    return spread


# -- the engine, and errors as one line ------------------------------------------------------

POLL_S = 0.05  # a writer's longest pause between two asks for SQLite's write lock


def _engine(where: HistoryUrl, wait: Wait, read_only: bool = False) -> Engine:
    if where.backend == "sqlite":
        return _sqlite(Path(where.shown.removeprefix("sqlite:///")), where, wait, read_only)
    timeout = max(1, math.ceil(wait.seconds))
    engine = create_engine(where.url, connect_args={"connect_timeout": timeout})

    @event.listens_for(engine, "connect")
    def _lock_timeout(dbapi_connection: Any, record: Any) -> None:
        # Set once connected, not as a startup option, which a pooler (PgBouncer) may refuse.
        cursor = dbapi_connection.cursor()
        cursor.execute(f"SET SESSION lock_timeout = {timeout * 1000}")
        if read_only:  # the server refuses any write
            cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        cursor.close()
        dbapi_connection.commit()

    return engine


def _sqlite(path: Path, where: HistoryUrl, wait: Wait, read_only: bool) -> Engine:
    if read_only:
        # Never created (mode=rw: the file must exist) and never written (query_only, below). Not
        # mode=ro: a read-only connection cannot remove the -wal and -shm files it makes to read a
        # WAL store, which the last connection to close removes. In a directory nothing can write
        # to, and without a write-ahead log (no writer is in the middle of a run), immutable:
        # SQLite would otherwise need to create the -shm file there, and could not.
        writable = os.access(path.parent, os.W_OK) or Path(f"{path}-wal").exists()
        uri = f"file:{quote(str(path))}?{'mode=rw' if writable else 'mode=ro&immutable=1'}"
        engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, timeout=wait.seconds))
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"its directory {path.parent} cannot be made ({exc.strerror})") from None
        engine = create_engine(where.url, connect_args={"timeout": wait.seconds})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions begun here, below
        if read_only:  # SQLite refuses every statement that would write
            dbapi_connection.execute("PRAGMA query_only = 1")
            return
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")  # readers do not wait for a writer
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        # A writer takes the lock first: one that read the attempt number in a shared
        # transaction could not upgrade it to write while another writer waits.
        if connection.get_execution_options().get("history_write"):
            _write_lock(connection.connection.driver_connection, wait)
        else:
            connection.exec_driver_sql("BEGIN")

    return engine


def _write_lock(dbapi_connection: Any, wait: Wait) -> None:
    """``BEGIN IMMEDIATE``, asked again every POLL_S until the wait is over: SQLite's own busy
    wait runs in C, where Ctrl-C is not seen until it ends."""
    deadline = time.monotonic() + wait.seconds
    dbapi_connection.execute(f"PRAGMA busy_timeout = {round(POLL_S * 1000)}")
    try:
        while True:
            try:
                dbapi_connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _is_locked(exc):
                    raise StoreError(_line(exc)) from None
                if time.monotonic() >= deadline:
                    raise StoreError(wait.over()) from None
    finally:
        dbapi_connection.execute(f"PRAGMA busy_timeout = {round(wait.seconds * 1000)}")


def _is_locked(exc: BaseException) -> bool:
    """SQLite's busy database, or PostgreSQL's lock timeout (lock_not_available)."""
    return "database is locked" in str(exc) or getattr(exc, "sqlstate", None) == "55P03"


@contextmanager
def _errors(where: HistoryUrl, wait: Wait) -> Iterator[None]:
    """Any failure of the database as a StoreError with one line, without credentials."""
    try:
        yield
    except StoreError:
        raise
    except (migrations.SchemaError, RowError) as exc:
        raise StoreError(str(exc)) from None
    except DBAPIError as exc:
        if exc.orig is not None and _is_locked(exc.orig):
            raise StoreError(wait.over()) from None
        raise StoreError(where.conceal(_line(exc.orig if exc.orig is not None else exc))) from None
    except (SQLAlchemyError, OSError, sqlite3.Error) as exc:
        raise StoreError(where.conceal(_line(exc))) from None


def _line(exc: BaseException) -> str:
    """The first line of an error (a driver's message may go on with hints and the SQL)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def record_run(target: HistoryTarget, record: RunRecord, project: Path, environ: Mapping[str, str]) -> RecordedRun:
    """The run recorded in the target store, with its provenance here. Raises StoreError."""
    origin = provenance.of(project, environ)
    with Store.open(target.url) as store:
        return store.record(record, origin, target.suite)
