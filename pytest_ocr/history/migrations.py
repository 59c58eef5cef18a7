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

from collections.abc import Callable, Sequence

from sqlalchemy import Connection, inspect, select

from ..errors import OcrError
from . import schema

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
            names = ", ".join(sorted(tables))
            raise SchemaError(f"not a pytest-ocr history store: it has tables ({names}) but no meta table")
        return 0
    found = connection.execute(select(schema.meta.c.value).where(schema.meta.c.name == "schema_version")).scalar()
    if found is None or not str(found).isdigit():
        raise SchemaError(f"not a pytest-ocr history store: its meta table has no schema_version ({found!r})")
    return int(found)


def migrate(connection: Connection, steps: Sequence[Step] = STEPS, latest: int = schema.VERSION) -> int:
    """Bring the store to ``latest`` inside ``connection``'s transaction; the version it was at.
    Raises SchemaError for a store newer than ``latest``."""
    found = version(connection)
    if found > latest:
        raise SchemaError(
            f"its schema is version {found}, newer than this pytest-ocr reads ({latest}): upgrade pytest-ocr"
        )
    if found == 0:
        schema.metadata.create_all(connection)
        connection.execute(schema.meta.insert(), [{"name": "schema_version", "value": str(latest)}])
        return 0
    for step in steps[found - 1 : latest - 1]:
        step(connection)
    if found != latest:
        connection.execute(schema.meta.update().where(schema.meta.c.name == "schema_version").values(value=str(latest)))
    return found
