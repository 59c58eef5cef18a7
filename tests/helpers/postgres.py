"""A throwaway PostgreSQL server for the history tests: Debian's ``postgresql`` package's
initdb and pg_ctl (/usr/lib/postgresql/*/bin), a cluster in a temporary directory, listening
on a free port of 127.0.0.1 with password authentication, stopped and deleted at the end.

PostgreSQL refuses to run as root: as root the cluster is made and run as the ``postgres``
user the package creates (``runuser -u postgres --``), in a directory that user owns.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from glob import glob
from itertools import count
from pathlib import Path

PASSWORD = "pg-secret-9f4c2e71a8"  # a password that must never appear in any output
USER = "keeper_q7x"


@dataclass
class Server:
    port: int
    directory: Path
    _databases = count(1)

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database on the server; its URL."""
        import psycopg

        name = f"history_{os.getpid()}_{next(self._databases)}"
        with psycopg.connect(self.url(), autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def binaries() -> Path | None:
    found = sorted(glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server() -> Iterator[Server]:
    bin_dir = binaries()
    assert bin_dir is not None, "PostgreSQL is not installed: apt-get install -y postgresql"
    directory = Path(tempfile.mkdtemp(prefix="pytest-ocr-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, password_file = directory / "data", directory / "password"
    password_file.write_text(PASSWORD + "\n", encoding="utf-8")
    if as_user:
        shutil.chown(password_file, "postgres", "postgres")
    port = _free_port()
    try:
        subprocess.run(
            [*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", USER, "--pwfile", str(password_file),
             "--auth", "scram-sha-256", "-E", "UTF8", "--no-sync"],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={directory} -c fsync=off"
        subprocess.run(
            [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(directory / "log"), "-o", options,
             "-w", "-t", "60", "start"],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        yield Server(port, directory)
    finally:
        subprocess.run(
            [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        shutil.rmtree(directory, ignore_errors=True)
