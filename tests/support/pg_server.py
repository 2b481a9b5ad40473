"""A real PostgreSQL server for the tests: initdb into a temp dir, start on a free port, stop at the end.

Fixtures (registered in tests/conftest.py):

    postgres_server     session: the running `PgServer` (one per xdist worker, started when first asked)
    postgres_url        session: the URL of a database created for the session
    fresh_postgres_url  function: the URL of a new, empty database for this test

URLs look like ``postgresql://notebook_tools:secret@127.0.0.1:PORT/DBNAME``: TCP on loopback with a
real password (scram-sha-256); `PgServer.admin()` connects as the superuser over the unix socket.

PostgreSQL refuses to run as root, so as root the server runs as Debian's `postgres` user
(`runuser -u postgres --`). If no PostgreSQL is installed the tests FAIL: `./dev check` installs it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

USER, PASSWORD = "notebook_tools", "secret"
NOT_FOUND = (
    "PostgreSQL is not installed (no initdb and pg_ctl in PATH or /usr/lib/postgresql/*/bin). "
    "Run ./dev check, which installs Debian's postgresql package, or: apt-get install postgresql"
)


def find_bin(name: str) -> str | None:
    """A PostgreSQL program from Debian's versioned directory (newest first), else from PATH."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=_version, reverse=True)
    return found[0] if found else shutil.which(name)


def _version(path: str) -> tuple[int, ...]:
    part = Path(path).parent.parent.name
    return tuple(int(p) for p in part.split(".") if p.isdigit())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop_orphans(pg_ctl: str, prefix: list[str]) -> None:
    """Stop the servers of test runs that were killed before they could (their process is gone)."""
    for root in Path(tempfile.gettempdir()).glob("nt-pg-*"):
        try:
            owner = int((root / "owner").read_text())
        except (OSError, ValueError):
            continue  # not ours, or being set up right now
        if _alive(owner):
            continue
        if (root / "data" / "postmaster.pid").exists():
            subprocess.run([*prefix, pg_ctl, "-D", str(root / "data"), "-m", "immediate", "-w", "stop"],
                           cwd=root, capture_output=True, timeout=60, check=False)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


class PgServer:
    """One PostgreSQL server in its own temp dir, listening on 127.0.0.1 and a unix socket there."""

    def __init__(self) -> None:
        initdb, self.pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        if initdb is None or self.pg_ctl is None:
            pytest.fail(NOT_FOUND, pytrace=False)
        self.as_root = os.geteuid() == 0
        self.prefix: list[str] = []
        if self.as_root:
            self.prefix = ["runuser", "-u", "postgres", "--"]
        _stop_orphans(self.pg_ctl, self.prefix)
        self.root = Path(tempfile.mkdtemp(prefix="nt-pg-"))  # short: a socket path has ~100 chars
        (self.root / "owner").write_text(str(os.getpid()))
        if self.as_root:
            try:
                shutil.chown(self.root, "postgres", "postgres")
            except LookupError:
                pytest.fail("running as root needs a `postgres` user to run PostgreSQL as. " + NOT_FOUND)
        self.data = self.root / "data"
        pwfile = self.root / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.as_root:
            shutil.chown(pwfile, "postgres", "postgres")
        self._call(
            initdb, "-D", str(self.data), "-U", USER, f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C",
            "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "--no-instructions",
        )  # fmt: skip
        self.port = 0
        for _ in range(5):  # another process may take the free port before the server binds it
            self.port = _free_port()
            try:
                self._call(self.pg_ctl, "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "30",
                           "-o", self._options(), "start")  # fmt: skip
                break
            except subprocess.CalledProcessError:
                continue
        else:
            raise RuntimeError(f"PostgreSQL did not start:\n{self.log()}")

    def _options(self) -> str:
        return (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )

    def _call(self, *args: str) -> None:
        # the server inherits no pipe of ours (-l), or this would wait for it to exit
        subprocess.run(
            [*self.prefix, *args], cwd=self.root, check=True, capture_output=True, text=True, timeout=60
        )

    def log(self) -> str:
        """The server's log so far."""
        path = self.root / "log"
        return path.read_text(errors="replace") if path.exists() else ""

    def url(self, dbname: str = "postgres") -> str:
        """A URL for `dbname`, over TCP with the password."""
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{dbname}"

    def admin(self, dbname: str = "postgres"):  # -> psycopg.Connection
        """An autocommit superuser connection over the unix socket."""
        import psycopg

        return psycopg.connect(host=str(self.root), port=self.port, user=USER, dbname=dbname, autocommit=True)

    def create_database(self, prefix: str = "t") -> str:
        """Create a new, empty database; its URL."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with self.admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def connections(self, dbname: str) -> int:
        """How many sessions (other than this query's) are open on `dbname`."""
        with self.admin() as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (dbname,),
            ).fetchone()
        return int(row[0]) if row else 0

    def drop_connections(self, dbname: str) -> int:
        """End every other session on `dbname` (what an administrator or a failover does); how many."""
        with self.admin() as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (dbname,),
            ).fetchall()
        return len(rows)

    def restart(self) -> None:
        """Restart the server (fast shutdown: every connection is closed)."""
        self._call(self.pg_ctl, "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "30",
                   "-m", "fast", "-o", self._options(), "restart")  # fmt: skip

    def stop(self) -> None:
        """Stop the server and remove its directory."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self._call(self.pg_ctl, "-D", str(self.data), "-w", "-t", "30", "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PgServer]:
    """A PostgreSQL server for this test process (each xdist worker starts its own)."""
    server = PgServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_url(postgres_server: PgServer) -> str:
    """The URL of a database created for the test session (tests share its rows)."""
    return postgres_server.create_database("session")


@pytest.fixture
def fresh_postgres_url(postgres_server: PgServer) -> str:
    """The URL of a new, empty database for this test alone."""
    return postgres_server.create_database()
