"""Alembic environment for the tables and triggers dedup-pipeline adds to the source database.

Run through `dedup_pipeline.sql.migrate` (the `dedup-pipeline migrate` command), not the
`alembic` command: it passes a `migrate.Target` (URL, table, id column and type, version
table) in `config.attributes["dedup"]` and, online, a live connection in
`config.attributes["connection"]`. No alembic.ini and no URL is committed.
"""

from alembic import context
from sqlalchemy.engine import make_url


def run_migrations_offline() -> None:
    """Render the SQL for the URL's dialect, values inlined, for a DBA to apply by hand."""
    target = context.config.attributes["dedup"]
    context.configure(dialect_name=make_url(target.url).get_backend_name(), literal_binds=True,
                      version_table=target.version_table)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Apply the migrations on the connection the caller opened (and commits)."""
    target = context.config.attributes["dedup"]
    context.configure(connection=context.config.attributes["connection"],
                      version_table=target.version_table)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
