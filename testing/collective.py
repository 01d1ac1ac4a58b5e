"""A collective petition (集体信访) for the tests and the benchmarks: a SQLite petition table
of n rows of one text from one submitter."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

TEXT = "小区门口的垃圾站已经半个月没有清运，臭味很大，苍蝇蚊子到处都是，住户连窗户都不敢开，请有关部门尽快处理。"
OTHER = "小区门口的垃圾站已经清运过了，但是附近的下水道又堵了，污水流到路上，请有关部门来看一看。"
ROW = ("垃圾清运", "张三", "13800000001", "某小区3号楼", "环境", TEXT, "2025-01-01")


def write_table(db: Path, copies: int) -> Path:
    """The table `petition` in the SQLite file `db`: rows 1 to `copies`, each ROW."""
    execute(db, "CREATE TABLE petition (id INTEGER PRIMARY KEY, title TEXT, name TEXT, phone TEXT, "
                "address TEXT, category TEXT, content TEXT, created_at TEXT)")
    insert(db, *range(1, copies + 1))
    return db


def insert(db: Path, *rows: int) -> None:
    """More copies: these rows, each ROW."""
    with sqlite3.connect(db) as conn:
        conn.executemany("INSERT INTO petition VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(n, *ROW) for n in rows])
    conn.close()


def execute(db: Path, statement: str, *values: Any) -> None:
    """One statement in a transaction of its own."""
    with sqlite3.connect(db) as conn:
        conn.execute(statement, values)
    conn.close()
