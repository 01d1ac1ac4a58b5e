"""Rows from SQL: any SQLAlchemy URL (MySQL/MariaDB through PyMySQL, SQLite for the demo).

Table and column names come from configuration and are checked against the real schema
before any query; SQLAlchemy quotes them. Rows stream in id order by keyset pagination,
so memory is bounded by the chunk size and no row is read twice or skipped.
"""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from .config import Config, ConfigError, mask_url


class SourceError(RuntimeError):
    """The source database cannot be reached or read; the message says what to do."""


class SqlSource:
    """The configured table, read through SQLAlchemy."""

    def __init__(self, config: Config):
        self.config = config
        if config.source.sample and not _sqlite_exists(config.source.url):
            create_sample(config.source.url)
        self.engine = sa.create_engine(config.source.url, pool_pre_ping=True)
        self.table = self._reflect()

    def _reflect(self) -> sa.Table:
        src = self.config.source
        try:
            table = sa.Table(src.table, sa.MetaData(), autoload_with=self.engine)
        except sa.exc.NoSuchTableError:
            raise ConfigError(f"[source] table {src.table!r} does not exist in "
                              f"{mask_url(src.url)}; check the table name") from None
        except sa.exc.SQLAlchemyError as e:
            raise SourceError(f"cannot read the schema of {mask_url(src.url)}: "
                              f"{type(e.orig or e).__name__}: {mask_url(str(e.orig or e))}") from None
        wanted = [src.id_column] + [f.name for f in self.config.fields]
        missing = [c for c in wanted if c not in table.c]
        if missing:
            raise ConfigError(f"column{'s' if len(missing) > 1 else ''} {', '.join(missing)} not in table "
                              f"{src.table!r} (it has: {', '.join(table.c.keys())}); fix [fields] or "
                              f"[source] id_column")
        return table

    def rows(self, chunk_size: int | None = None) -> Iterator[list[dict[str, Any]]]:
        """Every row as {column: value}, in chunks, in id order."""
        chunk_size = chunk_size or self.config.batch.chunk_size
        id_col = self.table.c[self.config.source.id_column]
        columns = [id_col] + [self.table.c[f.name] for f in self.config.fields]
        last = None
        while True:
            query = sa.select(*columns).order_by(id_col).limit(chunk_size)
            if last is not None:
                query = query.where(id_col > last)
            with self.engine.connect() as conn:
                chunk = [dict(r._mapping) for r in conn.execute(query)]
            if not chunk:
                return
            yield chunk
            last = chunk[-1][id_col.name]

    def count(self) -> int:
        with self.engine.connect() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(self.table)).scalar_one()


def create_sample(url: str) -> None:
    """Create the bundled sample table (petition-like rows) in a new SQLite database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        raise ConfigError(f"[source] sample = true needs an SQLite URL, got {mask_url(url)}")
    Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    sample = resources.files("dedup_pipeline").joinpath("data/sample_petitions.csv")
    with sample.open(encoding="utf-8", newline="") as f:
        rows = [{k: (None if v == "" else v) for k, v in row.items()} for row in csv.DictReader(f)]
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    table = sa.Table("petition", meta, sa.Column("id", sa.Integer, primary_key=True),
                     *(sa.Column(c, sa.Text) for c in rows[0] if c != "id"))
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(table.insert(), [{**r, "id": int(r["id"])} for r in rows])
    engine.dispose()


def _sqlite_exists(url: str) -> bool:
    database = make_url(url).database
    return bool(database) and Path(database).exists()
