"""Shared fixtures: a real MongoDB wire-protocol server (embedded SecantusDB) and a real
MariaDB (Debian's mariadb-server, managed by testing/mariadb.py)."""

import signal
import tomllib
import uuid

import pymongo
import pytest
from click.testing import CliRunner

from dedup_pipeline.cli import main
from dedup_pipeline.config import default_config_text, parse_config

from dedup_pipeline.store import shared
from dedup_pipeline.store.embedded import EmbeddedMongo
from testing.labelled import generate, write_sqlite
from testing.mariadb import MariaDB


@pytest.fixture(scope="module")
def spark():
    """A local PySpark session on both cores (Java 17), for `batch --engine spark`."""
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("dedup-pipeline tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    yield session
    session.stop()


@pytest.fixture
def labelled_in_memory(tmp_path):
    """The labelled petition set (600 rows) as an SQLite table, configured with the in-memory
    store and its state under tmp_path: (its rows, its configuration, the SQLite file)."""
    rows = generate(600, seed=5).rows
    path = write_sqlite(rows, tmp_path / "petition.sqlite")
    data = tomllib.loads(default_config_text())
    data["source"] = {"url": f"sqlite:///{path}", "table": "petition"}
    data["store"] = {"kind": "memory", "data_dir": str(tmp_path / "data")}
    data["batch"] = {"chunk_size": 100, "processes": 1}
    return rows, parse_config(data, env={}), path


@pytest.fixture(scope="session")
def mongo_uri(tmp_path_factory):
    """URI of an embedded MongoDB on a free loopback port, running for the whole session."""
    with EmbeddedMongo().start(tmp_path_factory.mktemp("mongo")) as mongo:
        yield mongo.uri


@pytest.fixture(scope="session")
def mongo_client(mongo_uri):
    client = pymongo.MongoClient(mongo_uri)
    yield client
    client.close()


@pytest.fixture
def mongo_db(mongo_client):
    """A fresh, empty database for one test, dropped afterwards."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    yield mongo_client[name]
    mongo_client.drop_database(name)


@pytest.fixture(scope="session")
def mariadb(tmp_path_factory):
    """A MariaDB server on a free loopback port for the whole session, with a utf8mb4
    database `dedup_test`; `mariadb.restart()` brings it back on the same data and port."""
    with MariaDB(tmp_path_factory.mktemp("mariadb")).start() as server:
        server.execute("CREATE DATABASE dedup_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        yield server


@pytest.fixture(scope="session")
def mariadb_url(mariadb):
    """mysql+pymysql://root@127.0.0.1:PORT/dedup_test?charset=utf8mb4"""
    return mariadb.url("dedup_test")


@pytest.fixture
def mysql_url(mariadb):
    """The URL of a fresh, empty utf8mb4 database for one test, dropped afterwards."""
    yield from fresh_database(mariadb)


@pytest.fixture(scope="session")
def mariadb_binlog(tmp_path_factory):
    """A MariaDB server that logs every change row by row (`--log-bin --binlog-format=ROW`,
    full row images), as `watch --from binlog` needs, for the whole session; its own server,
    so that the tests on `mariadb` run without a binary log, as the default is."""
    with MariaDB(tmp_path_factory.mktemp("mariadb-binlog"), binlog=True).start() as server:
        yield server


@pytest.fixture
def binlog_url(mariadb_binlog):
    """The URL of a fresh, empty utf8mb4 database on the binary-logging server, dropped afterwards."""
    yield from fresh_database(mariadb_binlog)


def fresh_database(server):
    name = f"test_{uuid.uuid4().hex[:16]}"
    server.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
    yield server.url(name)
    server.execute(f"DROP DATABASE {name}")


@pytest.fixture
def memory_db(monkeypatch):
    """A mongomock database: fast unit tests of what needs no real server."""
    import mongomock.collection

    # pymongo >= 4.9 passes `sort` to every bulk update; mongomock 4.3 does not know it.
    add_update = mongomock.collection.BulkOperationBuilder.add_update
    monkeypatch.setattr(mongomock.collection.BulkOperationBuilder, "add_update",
                        lambda self, *args, sort=None, **kwargs: add_update(self, *args, **kwargs))
    return mongomock.MongoClient().dedup


@pytest.fixture
def run(tmp_path, monkeypatch):
    """Runs the CLI in an empty folder with no configuration in the environment: the
    built-in default, the bundled sample in SQLite and the embedded store under ./dedup-data."""
    monkeypatch.chdir(tmp_path)
    for var in ("DEDUP_CONFIG", "DEDUP_SQL_URL", "DEDUP_MONGO_URI"):
        monkeypatch.delenv(var, raising=False)
    runner = CliRunner()
    yield lambda *args, **kw: runner.invoke(main, list(args), catch_exceptions=False, **kw)
    shared.stop(tmp_path / "dedup-data" / "mongo")  # the embedded store's server the commands started


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Debian's headless Chromium with one page (testing/browser.py), for one test module."""
    from testing.browser import Browser

    chromium = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


@pytest.fixture
def console_desk():
    """The console's fast tests' desk: rows, queue and decisions in memory (testing/console.py)."""
    from testing.console import FakeDesk

    return FakeDesk()


@pytest.fixture
def console_app(console_desk):
    """The review console over the stand-in desk, its login limit on a clock the test moves."""
    from dedup_pipeline.console.app import Settings, create_app
    from dedup_pipeline.console.guard import LoginLimit

    clock = [0.0]
    app = create_app(console_desk, Settings(secret=b"test-secret"), LoginLimit(clock=lambda: clock[0]))
    app.testing = True
    app.clock = clock
    return app


@pytest.fixture
def client(console_app):
    """A visitor with no session."""
    return console_app.test_client()


@pytest.fixture
def signed_in(console_app):
    """A client signed in as the reviewer `wang`; `.csrf` is the session's CSRF token."""
    import re

    reviewer = console_app.test_client()
    token = re.search(r'name="csrf_token" value="([^"]+)"', reviewer.get("/login").text).group(1)
    answer = reviewer.post("/login", data={"name": "wang", "password": "correct horse 1", "csrf_token": token})
    assert answer.status_code == 303, answer.text
    with reviewer.session_transaction() as session:
        reviewer.csrf = session["csrf"]
    return reviewer


SERVER_FIXTURES = {"mongo_uri", "mongo_client", "mongo_db", "mariadb", "mariadb_url", "mysql_url", "mariadb_binlog",
                   "binlog_url", "run", "browser", "spark"}


def pytest_configure(config):
    config.addinivalue_line("markers", "servers: starts a real MariaDB, MongoDB-protocol server, browser or "
                                       "process (`pytest -m 'not servers'`: the fast tier, about two minutes)")
    # Ctrl-C as a terminal sends it, whoever started the run: a shell's `&` starts a command with
    # SIGINT ignored, and the processes the tests interrupt with it would inherit that.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_sessionfinish(session):
    """The embedded stores' servers that tests' commands started and left to idle out, stopped
    now: a test run leaves no process behind."""
    base = session.config._tmp_path_factory.getbasetemp() if hasattr(session.config, "_tmp_path_factory") else None
    for address in base.rglob(shared.ADDRESS) if base and base.exists() else ():
        shared.stop(address.parent)


def pytest_collection_modifyitems(items):
    """A test that uses a real server's fixture is in the `servers` tier."""
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.servers)
