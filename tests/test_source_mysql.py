"""Reading rows from a real MariaDB (and the same code on SQLite): streaming in id order,
every column type, utf8mb4, GBK bytes in latin1 columns, and clear errors."""

import datetime as dt
import time
from decimal import Decimal

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy.dialects import mysql

from dedup_pipeline.cli import main
from dedup_pipeline.config import ConfigError, parse_config
from dedup_pipeline.store.embedded import free_port
from dedup_pipeline.core.features import FeatureError
from dedup_pipeline.core.simhash import fingerprint
from dedup_pipeline.sql.source import SourceError, SqlSource
from dedup_pipeline.core.schemes import featurizer

pytestmark = pytest.mark.servers  # real servers or processes of their own

FIELDS = {"title": "short", "content": "long", "amount": "ignore", "visits": "ignore",
          "filed_on": "ignore", "filed_at": "ignore"}


def config_for(url, table="petition", fields=None):
    return parse_config({"source": {"url": url, "table": table}, "fields": fields or FIELDS}, {})


def petition_rows(n):
    """Rows with gaps in the ids, NULLs, decimals, dates and emoji, not in id order."""
    rows = []
    for i in range(n):
        rows.append({"id": (i * 7919) % (n * 3) + 1, "title": None if i % 5 == 0 else f"物业乱收费 {i}",
                     "content": f"再次反映 😀 小区第{i}号楼漏水", "amount": Decimal(f"{i}.25"),
                     "visits": None if i % 3 == 0 else i, "filed_on": dt.date(2024, 1, 1 + i % 28),
                     "filed_at": dt.datetime(2024, 2, 3, 4, 5, i % 60)})
    return rows


@pytest.fixture(params=["mariadb", "sqlite"])
def petition_url(request, tmp_path):
    """A database with a `petition` table of typed columns: on MariaDB and on SQLite."""
    url = request.getfixturevalue("mysql_url") if request.param == "mariadb" else f"sqlite:///{tmp_path}/p.db"
    return create_petition(url)


@pytest.fixture
def mysql_petition_url(mysql_url):
    return create_petition(mysql_url)


def create_petition(url):
    meta = sa.MetaData()
    table = sa.Table("petition", meta, sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
                     sa.Column("title", sa.String(200)), sa.Column("content", sa.Text),
                     sa.Column("amount", sa.Numeric(10, 2)), sa.Column("visits", sa.Integer),
                     sa.Column("filed_on", sa.Date), sa.Column("filed_at", sa.DateTime))
    engine = sa.create_engine(url)
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(table.insert(), petition_rows(25))
    engine.dispose()
    return url


def test_rows_stream_in_id_order_with_nulls_numbers_dates_and_emoji(petition_url):
    with SqlSource(config_for(petition_url)) as source:
        chunks = list(source.rows(chunk_size=4, page_size=10))
    rows = [row for chunk in chunks for row in chunk]
    expected = sorted(petition_rows(25), key=lambda r: r["id"])
    assert rows == expected
    assert all(1 <= len(chunk) <= 4 for chunk in chunks)
    assert "😀" in rows[0]["content"] and rows[0]["content"] == expected[0]["content"]


def test_rows_are_read_by_keyset_pages_through_a_server_side_cursor(mysql_petition_url):
    with SqlSource(config_for(mysql_petition_url)) as source:
        queries = []
        sa.event.listen(source.engine, "before_cursor_execute",
                        lambda conn, cursor, sql, *rest: queries.append((type(cursor).__name__, sql)))
        assert sum(len(c) for c in source.rows(chunk_size=4, page_size=10)) == 25
    pages = [(cursor, sql) for cursor, sql in queries if "LIMIT" in sql]
    assert len(pages) == 3  # 10 + 10 + 5 rows
    assert {cursor for cursor, _ in pages} == {"SSCursor"}
    assert all("`petition`.`id` >" in sql or "petition.id >" in sql for _, sql in pages[1:])


TEXT_FIELDS = {"title": "short", "content": "long", "visits": "ignore"}


def test_rows_read_encoded_are_the_rows_read_otherwise_once_decoded(petition_url):
    with SqlSource(config_for(petition_url, fields=TEXT_FIELDS)) as source:
        encoded = [list(chunk) for chunk in source.tuples(chunk_size=7, encoded=True)]
        assert source.encodes == petition_url.startswith("sqlite")  # MySQL's driver decodes every text
        assert [source.decoded(chunk) for chunk in encoded] == [list(map(tuple, c)) for c in source.tuples(chunk_size=7)]
    texts = [v for chunk in encoded for row in chunk for v in row[1:3] if v is not None]
    assert {type(v) for v in texts} == ({bytes} if source.encodes else {str})


def test_text_ids_read_encoded_are_text_and_page_as_read_otherwise(tmp_path):
    url = f"sqlite:///{tmp_path}/p.db"
    with sa.create_engine(url).begin() as conn:
        conn.exec_driver_sql("CREATE TABLE petition (id PRIMARY KEY, title, content)")
        conn.exec_driver_sql("INSERT INTO petition VALUES " + ", ".join(
            f"({i if i % 3 else repr(f'a{i:02}')}, '标题{i}', '内容{i}')" for i in range(20)))
    with SqlSource(config_for(url, fields={"title": "short", "content": "long"})) as source:
        assert source.encodes
        encoded = [row for chunk in source.tuples(chunk_size=2, page_size=4, encoded=True) for row in chunk]
        plain = [tuple(row) for chunk in source.tuples(chunk_size=2, page_size=4) for row in chunk]
    assert [row[0] for row in encoded] == [row[0] for row in plain] and len(plain) == 20
    assert source.decoded(encoded) == plain


def test_a_column_sqlalchemy_converts_or_a_legacy_encoding_is_read_decoded_when_asked_encoded(tmp_path):
    url = create_petition(f"sqlite:///{tmp_path}/p.db")
    for fields in (FIELDS, {"title": {"role": "short", "encoding": "gbk"}, "content": "long"}):
        with SqlSource(config_for(url, fields=fields)) as source:
            assert not source.encodes
            assert [list(c) for c in source.tuples(encoded=True)] == [list(c) for c in source.tuples()]


def test_text_not_utf8_read_encoded_is_an_error_naming_its_row(tmp_path):
    url = create_petition(f"sqlite:///{tmp_path}/p.db")
    with sa.create_engine(url).begin() as conn:
        conn.exec_driver_sql("UPDATE petition SET content = CAST(X'D5C5' AS TEXT) WHERE id = 1")
    with SqlSource(config_for(url, fields=TEXT_FIELDS)) as source:
        read = [row for chunk in source.tuples(encoded=True) for row in source.decoded(chunk)]
        with pytest.raises(FeatureError, match=r"row id = 1 .*'content' holds bytes that are not valid utf-8"):
            source.dicts(read)


def test_one_row_by_id_and_several_in_id_order(petition_url):
    with SqlSource(config_for(petition_url)) as source:
        first = min(r["id"] for r in petition_rows(25))
        assert source.row(first)["content"] == next(r for r in petition_rows(25) if r["id"] == first)["content"]
        assert source.row(10_000) is None
        assert [r["id"] for r in source.rows_by_id([40, 1, 10_000, 17])] == [1, 17, 40]
        assert source.count() == 25


# 價 is 83 72 and 問 86 96 in GBK: MySQL's latin1 (cp1252) reads 0x83 as ƒ and 0x96 as –, so
# text read as latin1 cannot simply be encoded back to these bytes.
GBK_TITLE = "信访：物业价格問題 價"
GBK_CONTENT = "再次反映，小区楼道长期堆放杂物，存在消防隐患。"


@pytest.fixture
def legacy_url(mysql_url):
    """A latin1 table whose text columns hold GBK bytes, as old applications wrote them."""
    meta = sa.MetaData()
    table = sa.Table("legacy", meta, sa.Column("id", sa.Integer, primary_key=True),
                     sa.Column("title", mysql.VARCHAR(100, charset="latin1")),
                     sa.Column("content", mysql.TEXT(charset="latin1")), mysql_charset="latin1")
    engine = sa.create_engine(mysql_url)
    meta.create_all(engine)
    with engine.begin() as conn:
        unhex = {c: sa.func.unhex(v.encode("gbk").hex()) for c, v in (("title", GBK_TITLE), ("content", GBK_CONTENT))}
        conn.execute(table.insert().values(id=1, **unhex))
        conn.execute(table.insert().values(id=2, title=None, content=sa.func.unhex("ff")))
        stored = conn.execute(sa.select(sa.func.hex(table.c.content)).where(table.c.id == 1)).scalar_one()
    engine.dispose()
    assert bytes.fromhex(stored) == GBK_CONTENT.encode("gbk")
    return mysql_url


def legacy_config(url, encoding):
    return config_for(url, "legacy", {"title": {"role": "short", "encoding": encoding},
                                      "content": {"role": "long", "encoding": encoding}})


def test_gbk_bytes_in_a_latin1_column_read_as_chinese_with_encoding_gbk(legacy_url):
    config = legacy_config(legacy_url, "gbk")
    with SqlSource(config) as source:
        row = source.row(1)
    assert row == {"id": 1, "title": GBK_TITLE, "content": GBK_CONTENT}
    same_in_utf8 = {"title": GBK_TITLE, "content": GBK_CONTENT}
    assert fingerprint(row, featurizer(config)) == fingerprint(same_in_utf8, featurizer(config))


def test_without_an_encoding_gbk_bytes_come_back_as_latin1_mojibake(legacy_url):
    with SqlSource(legacy_config(legacy_url, "utf-8")) as source:
        assert source.row(1)["content"] != GBK_CONTENT


def test_bytes_that_are_not_gbk_name_the_column_and_the_setting(legacy_url):
    with SqlSource(legacy_config(legacy_url, "gbk")) as source:
        with pytest.raises(FeatureError, match=r"column 'content' holds bytes that are not valid gbk"):
            source.row(2)


def test_a_missing_column_is_named_with_the_columns_the_table_has(petition_url):
    config = config_for(petition_url, fields={"title": "short", "body": "long"})
    with pytest.raises(ConfigError, match=r"column body not in table 'petition' \(it has: id, title, content"):
        SqlSource(config)


@pytest.mark.parametrize("table", ["pe`tition", "petition ", "p" * 65])
def test_a_table_name_mysql_has_no_table_for_or_refuses_is_a_configuration_error(mysql_petition_url, tmp_path, table):
    (tmp_path / "c.toml").write_text(f'[source]\nurl = "{mysql_petition_url}"\ntable = "{table}"\n'
                                     f'[fields]\ncontent = "long"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["config", "--check", "--config", str(tmp_path / "c.toml")])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert f"[source] table {table!r}" in result.stderr and "check the table name" in result.stderr


def unreachable_url():
    return f"mysql+pymysql://dedup:s3cret@127.0.0.1:{free_port()}/petitions?charset=utf8mb4"


def test_an_unreachable_database_is_named_quickly_with_the_password_masked():
    url = unreachable_url()
    start = time.monotonic()
    with pytest.raises(SourceError) as caught:
        SqlSource(config_for(url))
    assert time.monotonic() - start < 5
    message = str(caught.value)
    port = url.split(":")[3].split("/")[0]
    assert f"cannot connect to the source database 127.0.0.1:{port}" in message
    assert "dedup:***@127.0.0.1" in message and "s3cret" not in message


def test_the_cli_reports_an_unreachable_database_without_a_traceback(tmp_path, monkeypatch):
    (tmp_path / "c.toml").write_text('[source]\nurl = "sqlite:///x.db"\ntable = "petition"\n'
                                     '[fields]\ncontent = "long"\n', encoding="utf-8")
    monkeypatch.setenv("DEDUP_SQL_URL", unreachable_url())
    result = CliRunner().invoke(main, ["config", "--check", "--config", str(tmp_path / "c.toml")])
    assert result.exit_code == 1
    assert "cannot connect to the source database" in result.output and "s3cret" not in result.output


def test_a_source_reads_again_after_mariadb_restarts(mariadb, mysql_petition_url):
    with SqlSource(config_for(mysql_petition_url)) as source:
        assert source.count() == 25
        mariadb.restart()
        assert sum(len(c) for c in source.rows()) == 25


def test_mysql_connections_read_committed_so_claims_never_hold_up_inserts(mysql_petition_url):
    with SqlSource(config_for(mysql_petition_url)) as source, source.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT @@tx_isolation")).scalar_one() == "READ-COMMITTED"


def test_rows_by_id_reads_through_the_callers_transaction(mysql_petition_url):
    with SqlSource(config_for(mysql_petition_url)) as source, source.engine.connect() as conn, conn.begin():
        conn.execute(sa.text("UPDATE petition SET title = '未提交的标题' WHERE id = 1"))
        assert source.rows_by_id([1], conn)[0]["title"] == "未提交的标题"
        assert source.rows_by_id([1])[0]["title"] != "未提交的标题"  # not committed: others see the old title
        conn.rollback()


# -- the id column must be unique: rows that share an id would be taken for one row

@pytest.fixture(params=["mariadb", "sqlite"])
def empty_url(request, tmp_path):
    """An empty database: on MariaDB and on SQLite."""
    if request.param == "mariadb":
        return request.getfixturevalue("mysql_url")
    sa.create_engine(f"sqlite:///{tmp_path}/p.db").connect().close()
    return f"sqlite:///{tmp_path}/p.db"


def execute(url, *statements):
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for statement in statements:
            conn.exec_driver_sql(statement)
    engine.dispose()


def config_check(url, tmp_path, table="petition"):
    (tmp_path / "c.toml").write_text(f'[source]\nurl = "{url}"\ntable = "{table}"\n[fields]\ntitle = "short"\n'
                                     f'content = "long"\n', encoding="utf-8")
    return CliRunner().invoke(main, ["config", "--check", "--config", str(tmp_path / "c.toml")])


REGIONAL = "CREATE TABLE petition (region INTEGER, id INTEGER, title VARCHAR(200), content TEXT{})"


@pytest.mark.parametrize("keys, why", [
    (", PRIMARY KEY (region, id)", "it is one of the columns of the PRIMARY KEY (region, id), unique only together"),
    (", PRIMARY KEY (region, id), UNIQUE (title, id)", "it is one of the columns of the PRIMARY KEY (region, id)"),
    ("", "it has no PRIMARY KEY nor UNIQUE index"),
], ids=["composite-key", "composite-unique", "none"])
def test_an_id_column_that_is_not_unique_is_a_configuration_error_saying_why_and_what_to_configure(
        empty_url, tmp_path, keys, why):
    execute(empty_url, REGIONAL.format(keys))
    result = config_check(empty_url, tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert result.stderr.startswith("Error: configuration: [source] id_column 'id' of table 'petition' is not unique: " + why)
    assert result.stderr.rstrip().endswith(
        "rows that share an id would be taken for one row; make it unique (CREATE UNIQUE INDEX petition_id_unique "
        "ON petition (id)), or set [source] id_column to a column that is (the PRIMARY KEY, or under a UNIQUE "
        "index of its own)")


def test_an_id_column_with_only_a_non_unique_index_says_that_its_index_is_not_unique(mysql_url, tmp_path):
    execute(mysql_url, REGIONAL.format(", PRIMARY KEY (region, id), KEY ix_id (id)"))
    result = config_check(mysql_url, tmp_path)
    assert result.exit_code == 2, result.output
    assert "is not unique: its index ix_id (id) is not UNIQUE; it is one of the columns of the PRIMARY KEY" \
        in result.stderr


def test_a_unique_index_on_the_id_column_alone_makes_it_an_id_whatever_the_primary_key(empty_url, tmp_path):
    execute(empty_url, REGIONAL.format(", PRIMARY KEY (region, id)"),
            "CREATE UNIQUE INDEX petition_id_unique ON petition (id)")
    result = config_check(empty_url, tmp_path)
    assert result.exit_code == 0, result.output
    assert "ok: table 'petition' has the id column and every field" in result.stderr


def test_a_batch_over_an_id_column_that_is_not_unique_is_refused_before_it_reads_a_row(mysql_url, mongo_uri,
                                                                                      mongo_db, tmp_path):
    execute(mysql_url, REGIONAL.format(", PRIMARY KEY (region, id)"),
            "INSERT INTO petition VALUES (1, 1, '物业', '物业乱收费'), (2, 1, '噪音', '夜间施工噪音扰民')")
    (tmp_path / "c.toml").write_text(f'[source]\nurl = "{mysql_url}"\ntable = "petition"\n[fields]\ntitle = "short"\n'
                                     f'content = "long"\n[store]\nmongo_uri = "{mongo_uri}"\n'
                                     f'database = "{mongo_db.name}"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["batch", "--config", str(tmp_path / "c.toml")])
    assert result.exit_code == 2 and "[source] id_column 'id' of table 'petition' is not unique" in result.stderr
    assert mongo_db.list_collection_names() == []


def test_a_view_is_read_with_its_id_column_taken_as_unique(empty_url, tmp_path):
    execute(empty_url, REGIONAL.format(", PRIMARY KEY (region, id)"),
            "INSERT INTO petition VALUES (1, 1, '物业', '物业乱收费'), (2, 1, '噪音', '夜间施工噪音扰民')",
            "CREATE VIEW open_petition AS SELECT id, title, content FROM petition WHERE region = 1")
    result = config_check(empty_url, tmp_path, table="open_petition")
    assert result.exit_code == 0, result.output
    assert "ok: table 'open_petition' has the id column and every field (1 rows)" in result.stderr


def test_config_check_names_an_id_a_view_repeats(empty_url, tmp_path):
    execute(empty_url, REGIONAL.format(", PRIMARY KEY (region, id)"),
            "INSERT INTO petition VALUES (1, 1, '物业', '物业乱收费'), (2, 1, '噪音', '夜间施工噪音扰民')",
            "CREATE VIEW every_petition AS SELECT id, title, content FROM petition")
    result = config_check(empty_url, tmp_path, table="every_petition")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert result.stderr.startswith(
        "Error: configuration: [source] table 'every_petition' is a view, and 2 of its rows have id = 1: a view's id column "
        "must be unique, as a PRIMARY KEY is, and only the view's definition can keep it so;")
