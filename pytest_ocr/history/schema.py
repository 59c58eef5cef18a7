"""The history store's tables (schema version 1), in SQLAlchemy Core: the same tables on
SQLite and PostgreSQL.

Compact, because every run adds one row per item: values and hashes, never texts. An
item's key is interned once per suite (``item_keys``); its row in a run (``items``) holds
the key's id, an outcome code, an 8-byte hash of its output and one of its inputs (the image,
the case as scored: what ``history flaky`` holds equal), whether it was cached, and its
metric values packed as little-endian doubles in the order ``run_metrics`` names for its
run and engine (NaN: no value); and what a baseline from history compares beyond them
(history/baseline.py): each repeat's values packed the same way (after how alike the
repeats' outputs were: the share of the most common, the mean CER between them) and
whether they differed, the metrics' counts (the micro averages' paired statistics; small
whole numbers, coded in a byte or two: history/counts.py), and the ids of the checks that
held. Packed per item row rather than one row per value (five times the rows and an index
on each) or one blob per run, engine and metric (an item's history would read every run's
whole blob): see benchmarks/bench_history.py for the sizes.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
)

VERSION = 2  # the schema this code reads and writes; migrations.py brings older stores to it


class Packed(LargeBinary):
    """Bytes stored as they are: LargeBinary's bind step (wrapping each value for the
    driver, which takes bytes as they are) cost 10 us a value, 0.6 s of a 20,000-item run."""

    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> None:
        return None


# SQLite: a 64-bit id is its INTEGER PRIMARY KEY (the rowid) only when declared INTEGER.
Id = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData()

meta = Table(
    "meta",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("suite", String(200), nullable=False),
    Column("commit", String(64)),  # None: recorded outside any repository, with no CI commit
    Column("branch", String(255)),
    Column("parents", String(1000)),  # space-separated
    Column("commit_time", String(40)),  # ISO 8601
    Column("attempt", Integer, nullable=False),  # 1, 2, ... per suite and commit
    Column("started_at", String(40), nullable=False),
    Column("finished_at", String(40), nullable=False),
    Column("duration_s", Float, nullable=False),
    Column("status", String(16), nullable=False),  # complete | interrupted
    Column("shards", Integer, nullable=False),
    Column("ci", String(16)),  # github | gitlab
    Column("job", String(255)),
    Column("run_url", String(1000)),
    Column("pytest_ocr", String(64), nullable=False),
    Column("scorers", Text, nullable=False),  # JSON: package -> version
    # JSON: metric (and "facts") -> {scorer, version} (version 2; NULL: recorded before, by every
    # scorer at its first version: registry.FIRST_VERSIONS)
    Column("metric_scorers", Text),
    Column("summary", Text, nullable=False),  # JSON: counts, gates, datasets, the run's own facts
    Column("recorded_at", String(40), nullable=False),
    UniqueConstraint("suite", "commit", "attempt", name="runs_attempt"),
    Index("runs_by_branch", "suite", "branch", "id"),
    Index("runs_by_commit", "commit"),
)

engines = Table(
    "engines",
    metadata,
    Column("run_id", Id, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("engine", String(200), primary_key=True),
    Column("fingerprint_id", String(64), nullable=False),
    Column("fingerprint", Text, nullable=False),  # JSON, secret-free as the run record holds it
)

aggregates = Table(
    "aggregates",
    metadata,
    Column("run_id", Id, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("engine", String(200), primary_key=True),
    Column("scope", String(255), primary_key=True),  # "": the engine's items; "tag:NAME" / "group:NAME"
    Column("metric", String(64), primary_key=True),
    Column("kind", String(8), primary_key=True),  # macro | micro
    Column("value", Float),
    Column("low", Float),  # the interval the run's report gives (the macro mean's bootstrap interval)
    Column("high", Float),
    Column("n", Integer, nullable=False),
    sqlite_with_rowid=False,
)

run_metrics = Table(  # the order of the values packed in an engine's item rows of a run
    "run_metrics",
    metadata,
    Column("run_id", Id, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("engine", String(200), primary_key=True),
    Column("metrics", Text, nullable=False),  # space-separated
    Column("counts", Text, nullable=False),  # the counts coded in its item rows: "metric:name", space-separated
)

item_keys = Table(
    "item_keys",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("suite", String(200), nullable=False),
    Column("key", Text, nullable=False),
    Column("engine", String(200)),  # None: a case file that could not be loaded
    UniqueConstraint("suite", "key", name="item_keys_key"),
)

items = Table(
    "items",
    metadata,
    Column("run_id", Id, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("key_id", Id, ForeignKey("item_keys.id"), primary_key=True),
    Column("outcome", SmallInteger, nullable=False),  # index in run.result.OUTCOMES
    Column("output_hash", Packed(8)),  # None: no output
    # What its verdict depends on besides the engine (cases/inputs.py); None: its inputs were not read
    Column("input_hash", Packed(8)),
    Column("cached", Boolean, nullable=False),
    Column("values", Packed, nullable=False),
    # What a baseline from history compares (history/baseline.py), as a JSON report would:
    # how alike the repeats' outputs were (identical, pairwise_cer), then each repeat's values (None: once)
    Column("repeats", Packed),
    Column("unstable", Boolean),  # whether the repeats' outputs differed (None: recognised once)
    Column("counts", Packed),  # the metrics' counts (micro averages), coded as counts.py says; None: none
    Column("facts", Text),  # the ids of the checks that held, one a line (None: the case has no checks)
    Index("items_by_key", "key_id", "run_id"),
    sqlite_with_rowid=False,
)
