"""A store's schema brought to the one this code reads (schema.VERSION), in the transaction
that holds the store's write lock, so that two processes opening an old or an empty store
at once migrate it once.

An empty database (version 0) gets the current tables. A store at version n < VERSION is
taken through ``STEPS[n]``, ``STEPS[n+1]``, ...: each a function that changes a version n
store into a version n+1 one. Adding version 2 is one function appended here, and the
version 1 tables kept as data in tests/test_history_migrations.py. A store newer than the
code is refused: its tables may mean what this code cannot know.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from sqlalchemy import Connection, inspect, select

from ..errors import OcrError
from ..visible import visible
from . import schema
from .rows import quoted

Step = Callable[[Connection], None]


def _metric_scorers(connection: Connection) -> None:
    """Version 2: each run's metrics' scorers (NULL for the runs recorded before: first versions)."""
    connection.exec_driver_sql("ALTER TABLE runs ADD COLUMN metric_scorers TEXT")


# STEPS[n]: version n+1 -> version n+2 (version 1 is the first; an empty store is created whole)
STEPS: list[Step] = [_metric_scorers]


class SchemaError(OcrError):
    """A store this code cannot use: newer than it, or not a history store."""


def version(connection: Connection) -> int:
    """The store's schema version: 0 for an empty database."""
    tables = set(inspect(connection).get_table_names())
    if schema.meta.name not in tables:
        if tables & set(schema.metadata.tables):
            raise SchemaError(f"not a pytest-ocr history store: it has tables ({_names(tables)}) but no meta table")
        return 0
    found = connection.execute(select(schema.meta.c.value).where(schema.meta.c.name == "schema_version")).scalar()
    if not isinstance(found, str) or not re.fullmatch(r"[0-9]{1,9}", found):
        raise SchemaError(f"not a pytest-ocr history store: its meta table has no schema_version ({quoted(found)})")
    return int(found)


def readable(connection: Connection, latest: int = schema.VERSION) -> int:
    """The version of the store, which a reader reads as it is (never migrated: reading
    writes nothing). Raises SchemaError for a database that holds no store (another
    program's, or one nothing was recorded in yet) or a store newer than ``latest``."""
    tables = set(inspect(connection).get_table_names())
    if schema.meta.name not in tables:
        if not tables:
            raise SchemaError("holds no history store yet: no run was recorded in it (--ocr-history records runs)")
        raise SchemaError(f"not a pytest-ocr history store: it has tables ({_names(tables)}) but no meta table")
    return _not_newer(version(connection), latest)


def _names(tables: set[str]) -> str:
    return ", ".join(visible(name) for name in sorted(tables))  # another program's names, shown as they are


def _not_newer(found: int, latest: int) -> int:
    if found > latest:
        raise SchemaError(
            f"its schema is version {found}, newer than this pytest-ocr reads ({latest}): upgrade pytest-ocr"
        )
    return found


def migrate(connection: Connection, steps: Sequence[Step] = STEPS, latest: int = schema.VERSION) -> int:
    """Bring the store to ``latest`` inside ``connection``'s transaction; the version it was at.
    Raises SchemaError for a store newer than ``latest``."""
    found = _not_newer(version(connection), latest)
    if found == 0:
        schema.metadata.create_all(connection)
        connection.execute(schema.meta.insert(), [{"name": "schema_version", "value": str(latest)}])
        return 0
    for step in steps[found - 1 : latest - 1]:
        step(connection)
    if found != latest:
        connection.execute(schema.meta.update().where(schema.meta.c.name == "schema_version").values(value=str(latest)))
    return found
