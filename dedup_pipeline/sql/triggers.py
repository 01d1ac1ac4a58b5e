"""The triggers that put a table's changes in dedup_outbox, one set per table followed:
several tables of one database (来信, 来访, 网上信访) each have theirs, named for it, and
each entry names its table (`source_table`), so that each table's worker claims its own.

Revision 0001 made the first table's, which name no table: their entries take it from the
column's default (revision 0005). `migrate` makes a table's here when it has none (`ensure`),
and `migrate --downgrade` removes them (`drop`); one statement each, so that they run in the
`mysql` client without DELIMITER (MySQL/MariaDB), or wrapped in BEGIN ... END (SQLite).
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa

OUTBOX = "dedup_outbox"
OPS = ("insert", "update", "delete")
MAX_IDENTIFIER = 64  # MySQL's limit for a trigger name


def name(table: str, operation: str) -> str:
    """The trigger of `operation` on `table`, named as revision 0001 named the first table's."""
    found = f"dedup_{table}_{operation}"
    if len(found) > MAX_IDENTIFIER:
        found = f"dedup_{hashlib.sha1(table.encode()).hexdigest()[:16]}_{operation}"
    return found


def create(dialect: sa.Dialect, table: str, id_column: str, operation: str) -> str:
    """CREATE TRIGGER of `operation` on `table`: its row's id, the operation and the table
    into the outbox (an update that changes the id: the old one as a delete too)."""
    q, sqlite = dialect.identifier_preparer.quote, dialect.name == "sqlite"
    named = sa.literal(table, sa.String()).compile(dialect=dialect, compile_kwargs={"literal_binds": True})
    row = "OLD" if operation == "delete" else "NEW"
    enqueue = (f"INSERT INTO {q(OUTBOX)} ({q('row_id')}, {q('op')}, {q('source_table')}) "
               f"SELECT {row}.{q(id_column)}, '{operation}', {named}")
    if operation == "update":
        from_dual = "" if sqlite else " FROM DUAL"  # MySQL needs a FROM before WHERE
        enqueue += (f" UNION ALL SELECT OLD.{q(id_column)}, 'delete', {named}{from_dual}"
                    f" WHERE OLD.{q(id_column)} <> NEW.{q(id_column)}")
    body = f"BEGIN {enqueue}; END" if sqlite else enqueue
    return f"CREATE TRIGGER {q(name(table, operation))} AFTER {operation.upper()} ON {q(table)} FOR EACH ROW {body}"


def on(conn: sa.Connection, table: str) -> set[str]:
    """The names of the triggers on `table`."""
    if conn.dialect.name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = :t"
    else:
        query = ("SELECT trigger_name FROM information_schema.triggers "
                 "WHERE event_object_schema = DATABASE() AND event_object_table = :t")
    return {r[0] for r in conn.execute(sa.text(query), {"t": table})}


def others(conn: sa.Connection, table: str) -> set[str]:
    """The other tables of the database whose triggers write dedup_outbox."""
    if conn.dialect.name == "sqlite":
        query = "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE :outbox AND tbl_name <> :t"
    else:
        query = ("SELECT event_object_table FROM information_schema.triggers WHERE event_object_schema = DATABASE() "
                 "AND action_statement LIKE :outbox AND event_object_table <> :t")
    return {r[0] for r in conn.execute(sa.text(query), {"t": table, "outbox": f"%{OUTBOX}%"})}


def ensure(conn: sa.Connection, table: str, id_column: str) -> int:
    """Make the triggers `table` lacks (after the migrations: the outbox is there); how many."""
    there = on(conn, table)
    missing = [operation for operation in OPS if name(table, operation) not in there]
    for operation in missing:
        conn.exec_driver_sql(create(conn.dialect, table, id_column, operation))
    return len(missing)


def drop(conn: sa.Connection, table: str) -> None:
    """Remove `table`'s triggers, whichever revision or `ensure` made them (those there: a
    database on the binary log, whose account may not touch triggers, has none)."""
    q, there = conn.dialect.identifier_preparer.quote, on(conn, table)
    for operation in OPS:
        if name(table, operation) in there:
            conn.exec_driver_sql(f"DROP TRIGGER {q(name(table, operation))}")
