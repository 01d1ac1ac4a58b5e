"""Passwords are never shown: a password holding / @ : % # in the source URL or the MongoDB
URI stays masked in every line the commands print and in the HTML report's settings."""

import json
import urllib.parse

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from dedup_pipeline.cli import main
from tests.test_incremental import sample_rows

PASSWORD = "Qzv/r3t:k#ey@x%9z"
# Pieces of the password, as written in a URL or escaped: none may ever be printed.
PIECES = ("Qzv", "r3t", "k#ey", "x%9z", "x%259z")
# As people write it in an SQLAlchemy URL: / : # as they are, @ and % escaped.
SQL_WRITTEN = PASSWORD.replace("%", "%25").replace("@", "%40")
USER = "qzv_user"
COLUMNS = ["title", "name", "phone", "address", "category", "created_at", "content"]
CONFIG = ('[source]\nurl = "sqlite:///unused.db"\ntable = "petition"\n[fields]\n'
          'title = "short"\nname = "short"\nphone = "short"\naddress = "short"\ncategory = "short"\n'
          'content = "long"\ncreated_at = "ignore"\n[batch]\nprocesses = 1\n')


def shown(output):
    """The pieces of the password the output shows (none, unless it leaks)."""
    return [piece for piece in PIECES if piece in output]


@pytest.fixture
def secret_source(mariadb, mysql_url):
    """A petition table of sample rows, read by a user whose password holds / : # @ %;
    its URL as written in DEDUP_SQL_URL."""
    database = sa.engine.make_url(mysql_url).database
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        table = sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                         *(sa.Column(c, sa.Text) for c in COLUMNS))
        table.create(conn)
        conn.execute(table.insert(), sample_rows()[:60])
    engine.dispose()
    mariadb.execute(f"CREATE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'")
    mariadb.execute(f"GRANT ALL ON {database}.* TO '{USER}'@'127.0.0.1'")
    yield f"mysql+pymysql://{USER}:{SQL_WRITTEN}@127.0.0.1:{mariadb.port}/{database}?charset=utf8mb4"
    mariadb.execute(f"DROP USER '{USER}'@'127.0.0.1'")


@pytest.fixture
def secret_mongo(mongo_uri, mongo_client):
    """The test MongoDB's URI with a user whose password holds / : # @ % (escaped, as
    pymongo requires)."""
    mongo_client.admin.command("createUser", USER, pwd=PASSWORD, roles=["root"])
    yield mongo_uri.replace("mongodb://", f"mongodb://{USER}:{urllib.parse.quote_plus(PASSWORD)}@")
    mongo_client.admin.command("dropUser", USER)


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """Runs the CLI in an empty folder with dedup.toml (the sample's fields), the URLs
    given as environment variables."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dedup.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.setenv("DEDUP_CONFIG", "dedup.toml")
    monkeypatch.delenv("DEDUP_MONGO_URI", raising=False)

    def invoke(*args, sql_url=None, mongo_uri=None):
        env = {"DEDUP_SQL_URL": sql_url, "DEDUP_MONGO_URI": mongo_uri}
        return CliRunner().invoke(main, list(args), env={k: v for k, v in env.items() if v})
    return invoke


def test_config_masks_passwords_holding_url_characters_in_both_urls(cli):
    sql_url = f"mysql+pymysql://{USER}:{PASSWORD}@db:3306/p"
    mongo_uri = f"mongodb://{USER}:{PASSWORD}@m1:27017,m2:27017/?authSource=admin"
    result = cli("config", sql_url=sql_url, mongo_uri=mongo_uri)
    settings = json.loads(result.output)
    assert result.exit_code == 0 and shown(result.output) == []
    assert settings["source"]["url"] == f"mysql+pymysql://{USER}:***@db:3306/p"
    assert settings["store"]["mongo_uri"] == f"mongodb://{USER}:***@m1:27017,m2:27017/?authSource=admin"


def test_batch_lines_mask_the_source_and_mongodb_passwords(cli, secret_source, secret_mongo):
    result = cli("batch", sql_url=secret_source, mongo_uri=secret_mongo)
    assert result.exit_code == 0, result.output
    lines = {line.split(":")[0]: line for line in result.output.splitlines()}
    assert f"{USER}:***@127.0.0.1" in lines["source"] and f"{USER}:***@127.0.0.1" in lines["dedup_match"]
    assert f"{USER}:***@127.0.0.1" in lines["results"]
    assert shown(result.output) == []


def test_the_html_report_settings_mask_both_passwords(cli, secret_source, secret_mongo, tmp_path):
    assert cli("batch", sql_url=secret_source, mongo_uri=secret_mongo).exit_code == 0
    result = cli("report", "--html", "report.html", sql_url=secret_source, mongo_uri=secret_mongo)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert result.exit_code == 0 and shown(result.output + html) == []
    assert html.count(f"{USER}:***@127.0.0.1") == 2  # the source's URL and MongoDB's


def test_an_unescaped_mongodb_password_is_masked_in_the_batch_error(cli, secret_source, mongo_uri):
    unescaped = mongo_uri.replace("mongodb://", f"mongodb://{USER}:{PASSWORD}@")
    result = cli("batch", sql_url=secret_source, mongo_uri=unescaped)
    assert result.exit_code == 1 and f"{USER}:***@127.0.0.1" in result.output
    assert shown(result.output) == []


def test_watch_error_line_masks_the_source_password(cli, secret_source, mongo_uri):
    result = cli("watch", "--once", sql_url=secret_source, mongo_uri=mongo_uri)
    assert result.exit_code == 1 and "run `dedup-pipeline migrate` first" in result.output
    assert f"{USER}:***@127.0.0.1" in result.output and shown(result.output) == []


def test_an_unescaped_at_sign_in_the_source_password_is_a_configuration_error(cli, secret_source):
    unescaped = secret_source.replace(SQL_WRITTEN, PASSWORD)  # SQLAlchemy would take "x%9z@127..." as the host
    result = cli("batch", sql_url=unescaped)
    assert result.exit_code == 2 and "write each @ in it as %40" in result.output
    assert f"{USER}:***@127.0.0.1" in result.output and shown(result.output) == []


# An @ in the password followed by a colon: SQLAlchemy ends the password at its first @ and
# reads "2024!x@127.0.0.1:3306" as the port.
AT_THEN_COLON = "mysql+pymysql://app:Secr@t:2024!x@127.0.0.1:3306/petitions"


@pytest.mark.parametrize("command", [["config", "--check"], ["batch"], ["migrate", "--sql"]])
def test_an_unescaped_at_sign_then_a_colon_in_the_password_is_one_line_exit_2(cli, command):
    result = cli(*command, sql_url=AT_THEN_COLON)
    error = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and "Traceback" not in result.output and len(error) == 1
    assert "write each @ in it as %40" in error[0] and "app:***@127.0.0.1:3306" in error[0]
    assert not any(piece in result.output for piece in ("Secr", "2024!x"))


def test_a_port_that_is_not_a_number_is_one_line_exit_2(cli):
    result = cli("config", "--check", sql_url="mysql+pymysql://app:Secr3t@127.0.0.1:33x6/petitions")
    error = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and "Traceback" not in result.output and len(error) == 1
    assert "port" in error[0] and "'33x6' is not a number" in error[0] and "Secr3t" not in result.output
