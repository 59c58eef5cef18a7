"""The history store's schema versions, on SQLite and on a real PostgreSQL server: an empty
database becomes a store of the current version; a store of every earlier version (its tables
kept as data in tests/data/history/v<N>.<backend>.sql) is migrated to the current one with its
runs kept; a store newer than this code, or a database that is not a store, is refused with
one line. Adding version 2 is one step in migrations.STEPS and its file here."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.history import session, text_suite
from sqlalchemy import Connection, create_engine, inspect, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.schema import CreateIndex, CreateTable

from pytest_ocr.history import migrations, schema
from pytest_ocr.history.store import Store, StoreError, Wait
from pytest_ocr.history.store import _engine as store_engine
from pytest_ocr.history.url import parse

VERSIONS = Path(__file__).parent / "data" / "history"
DIALECTS = {"sqlite": sqlite.dialect(), "postgresql": postgresql.dialect()}


def backend(url: str) -> str:
    return "sqlite" if url.startswith("sqlite") else "postgresql"


def statements(version: int, name: str) -> list[str]:
    """A version's tables as the file keeps them, one statement each."""
    lines = (VERSIONS / f"v{version}.{name}.sql").read_text(encoding="utf-8").splitlines()
    sql = "\n".join(line for line in lines if not line.startswith("--"))
    return [s.strip() for s in sql.split(";") if s.strip()]


def normal(statement: str) -> str:
    return " ".join(statement.replace("( ", "(").replace(" )", ")").split())


def make_store(url: str, tmp_path: Path, sql: list[str]) -> None:
    """A database holding exactly what ``sql`` makes."""
    where = parse(url, tmp_path)
    if where.backend == "sqlite":
        Path(where.shown.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(where.url)
    with engine.begin() as connection:
        for statement in sql:
            connection.exec_driver_sql(statement)
    engine.dispose()


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_the_current_schema_is_the_last_version_kept(name: str) -> None:
    """Changing schema.py without a new version (a migration step and its file) fails here."""
    made = [
        str(statement.compile(dialect=DIALECTS[name]))
        for table in schema.metadata.sorted_tables
        for statement in (
            CreateTable(table),
            *(CreateIndex(i) for i in sorted(table.indexes, key=lambda i: str(i.name))),
        )
    ]
    kept = statements(schema.VERSION, name)
    assert [normal(s) for s in made] == [normal(s) for s in kept if not s.startswith("INSERT")]
    assert len(migrations.STEPS) == schema.VERSION - 1  # one step per version after the first


def test_an_empty_database_becomes_a_store_of_the_current_version(history_url: str, tmp_path: Path) -> None:
    with Store.open(parse(history_url, tmp_path)) as store, store.engine.connect() as connection:
        assert migrations.version(connection) == schema.VERSION
        assert set(schema.metadata.tables) <= set(inspect(connection).get_table_names())
        assert store.runs("any") == []


@pytest.mark.parametrize("version", range(1, schema.VERSION + 1))
def test_a_store_of_every_version_is_migrated_with_its_runs(version: int, history_url: str, tmp_path: Path) -> None:
    make_store(history_url, tmp_path, statements(version, backend(history_url)))
    make_store(
        history_url,
        tmp_path,
        [
            'INSERT INTO runs (suite, "commit", attempt, started_at, finished_at, duration_s, status, shards, '
            "pytest_ocr, scorers, summary, recorded_at) VALUES ('s', 'abc', 1, 't0', 't1', 1.5, 'complete', 0, "
            "'0.1', '{}', '{\"counts\": {\"passed\": 3}}', 't2')"
        ],
    )
    with Store.open(parse(history_url, tmp_path)) as store:
        [run] = store.runs("s")
        assert (run.commit, run.attempt, run.summary) == ("abc", 1, {"counts": {"passed": 3}})
        with store.engine.connect() as connection:
            assert migrations.version(connection) == schema.VERSION


def add_a_column(connection: Connection) -> None:
    connection.exec_driver_sql("ALTER TABLE runs ADD COLUMN label VARCHAR(20)")
    connection.exec_driver_sql("UPDATE runs SET label = 'migrated'")


def fail(connection: Connection) -> None:
    connection.exec_driver_sql("ALTER TABLE runs ADD COLUMN half VARCHAR(20)")
    raise RuntimeError("a step that fails half way")


def test_steps_run_in_order_in_one_transaction(history_url: str, tmp_path: Path) -> None:
    """The framework on a version 1 store with a step to a version 2 that does not exist yet,
    in the transaction the store migrates in: applied and stamped; a step that fails leaves
    the store as it was (SQLite's DDL too: the store begins its transactions itself)."""
    make_store(history_url, tmp_path, statements(1, backend(history_url)))
    make_store(
        history_url,
        tmp_path,
        [
            "INSERT INTO runs (suite, attempt, started_at, finished_at, duration_s, status, shards, pytest_ocr, "
            "scorers, summary, recorded_at) VALUES ('s', 1, 't0', 't1', 1.0, 'complete', 0, '0.1', '{}', '{}', 't')"
        ],
    )
    where = parse(history_url, tmp_path)
    store = Store(store_engine(where, Wait(5.0)), where)
    with pytest.raises(RuntimeError), store._writing() as connection:
        migrations.migrate(connection, [add_a_column, fail], latest=3)
    with store._writing() as connection:
        assert migrations.version(connection) == 1
        assert not {"label", "half"} & {c["name"] for c in inspect(connection).get_columns("runs")}
    with store._writing() as connection:
        assert migrations.migrate(connection, [add_a_column], latest=2) == 1
    with store._writing() as connection:
        assert migrations.version(connection) == 2
        assert connection.execute(text("SELECT label FROM runs")).scalar_one() == "migrated"
    store.close()


def test_a_store_newer_than_the_code_is_refused(history_url: str, tmp_path: Path) -> None:
    newer = schema.VERSION + 1
    make_store(history_url, tmp_path, statements(schema.VERSION, backend(history_url)))
    make_store(history_url, tmp_path, [f"UPDATE meta SET value = '{newer}' WHERE name = 'schema_version'"])
    with pytest.raises(StoreError) as raised:
        Store.open(parse(history_url, tmp_path))
    assert str(raised.value) == (
        f"its schema is version {newer}, newer than this pytest-ocr reads ({schema.VERSION}): upgrade pytest-ocr"
    )


@pytest.mark.slow  # pytest sessions
def test_a_run_with_a_store_newer_than_the_code_is_not_recorded(history_url: str, tmp_path: Path) -> None:
    root = text_suite(tmp_path / "project")
    make_store(history_url, root, statements(schema.VERSION, backend(history_url)))
    make_store(history_url, root, ["UPDATE meta SET value = '99' WHERE name = 'schema_version'"])
    done = session(root, "--ocr-report=report.json", f"--ocr-history={history_url}")
    assert done.returncode == 0, done.output
    assert (root / "report.json").is_file()
    [line] = [line for line in done.stdout.splitlines() if "OCR history" in line]
    assert line.startswith("warning: OCR history not recorded in ") and "schema is version 99" in line
    required = session(root, f"--ocr-history={history_url}", "--ocr-history-required")
    assert required.returncode == 1 and "ERROR: OCR history could not be recorded" in required.stdout
    engine = create_engine(parse(history_url, root).url)
    with engine.connect() as connection:
        assert connection.execute(select(schema.runs.c.id)).all() == []
    engine.dispose()


def test_a_database_that_is_not_a_store_is_refused(history_url: str, tmp_path: Path) -> None:
    make_store(history_url, tmp_path, ["CREATE TABLE runs (id INTEGER PRIMARY KEY, what TEXT)"])
    with pytest.raises(StoreError, match=r"not a pytest-ocr history store: it has tables \(runs\) but no meta table"):
        Store.open(parse(history_url, tmp_path))
