"""The `dedup-pipeline` command: each command parses its options, loads the configuration,
calls one library function (commands.py, review.py) and prints what it returns; library errors become
a clean message and exit code at the edge (with_config)."""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import json
import os
import re
import signal
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

import click

from . import __version__, commands, deploy as deployment, review
from .errors import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, DedupError, InputError

if TYPE_CHECKING:
    from .config import Config
    from .jobs.incremental import Checked
    from .jobs.watch import Tally


class CliError(click.ClickException):
    """An error the user can fix; printed without a traceback."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR):
        super().__init__(message)
        self.exit_code = exit_code


def with_config(command: Callable) -> Callable:
    """Adds --config and passes the loaded Config as `config`. The one place where errors
    become a line and an exit code: the library's (`DedupError`, each with its code), a
    file that cannot be read or written, a driver error no module wrapped, and Ctrl-C."""

    @click.option("--config", "config_path", type=click.Path(dir_okay=False),
                  help="TOML configuration (default: $DEDUP_CONFIG, else the built-in sample).")
    @functools.wraps(command)
    def wrapper(config_path: str | None, **kwargs: Any) -> Any:
        try:
            return command(config=load_config(config_path), **kwargs)
        except DedupError as e:
            from .config import ConfigError

            raise CliError(f"configuration: {e}" if isinstance(e, ConfigError) else str(e), e.exit_code) from None
        except OSError as e:
            raise CliError(_os_error(e)) from None
        except Exception as e:
            if not _from_a_driver(e):
                raise
            raise CliError(_driver_error(e)) from None
        except KeyboardInterrupt:
            raise CliError("interrupted", EXIT_INTERRUPTED) from None

    return wrapper


def load_config(path: str | None) -> Config:
    """The configuration, its module (and with it numpy and the core) loaded only now, inside
    `with_config`: a Ctrl-C while a command starts is one line too."""
    from .config import load_config as load

    return load(path)


def _os_error(error: OSError) -> str:
    """A filesystem error as one line: what failed, and on which file (a full disk: what to do)."""
    where = f"{error.filename}: " if error.filename else ""
    full = "; the disk is full: free space on it, then run the command again" if error.errno == errno.ENOSPC else ""
    return f"{where}{error.strerror or error}{full}"


def _from_a_driver(error: Exception) -> bool:
    """Whether the error is pymongo's or SQLAlchemy's (a failure of a server, not of this code)."""
    return type(error).__module__.split(".")[0] in ("pymongo", "bson", "sqlalchemy", "pymysql")


def _driver_error(error: Exception) -> str:
    from .jobs.watch import describe

    return describe(error)


class _Program(click.Group):
    """The command group; run as the program, a Ctrl-C after the command (while Python
    runs its exit handlers, pymongo's among them) also ends with one line, not a traceback."""

    def main(self, args: Any = None, **kwargs: Any) -> Any:
        try:
            return super().main(args, **kwargs)
        finally:
            if args is None:  # arguments from sys.argv: the program itself, not a test calling it
                signal.signal(signal.SIGINT, _interrupted_at_exit)


def _interrupted_at_exit(signum: int, frame: Any) -> None:
    """The command is done: say it was interrupted and leave at once."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os.write(2, b"Error: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


@click.group(cls=_Program, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dedup-pipeline")
def main() -> None:
    """Find near-duplicate rows (re-submitted or shared complaints) in a relational table.

    Exit codes: 0 success, 1 an error (database, input), 2 a configuration error,
    130 interrupted (Ctrl-C).
    """


@main.command()
@with_config
@click.option("--processes", type=int, default=None, help="Worker processes (default: all cores).")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              help="Also write every row's id and hex fingerprint to this CSV file.")
@click.option("--algorithm", type=click.Choice(["blocks", "single-pass"]), default="blocks", show_default=True,
              help="single-pass: the paper's O(n^2) baseline, same output, for comparison only.")
@click.option("--engine", type=click.Choice(["local", "spark"]), default="local", show_default=True,
              help="spark: on PySpark (pip install 'dedup-pipeline[spark]', Java 17); see the README.")
@click.option("--master", envvar="DEDUP_SPARK_MASTER", help="Spark master URL (default: spark-submit's, else local[*]).")
@click.option("--partitions", type=click.IntRange(min=1), help="Spark: id ranges read (default: 2 a core, or 100,000 rows each).")
@click.option("--full", is_flag=True, help="Sketch and decide every row again, and rebuild the block index "
              "(by default a re-run sketches only the rows changed since the last batch).")
def batch(config: Config, processes: int | None, out: str | None, algorithm: str, engine: str,
          master: str | None, partitions: int | None, full: bool) -> None:
    """集中处理: fingerprint every row of the configured table, find every similar pair,
    group them, and store the pairs and groups in MongoDB.

    Example: dedup-pipeline batch --out fingerprints.csv    (on Spark: dedup-pipeline batch --engine spark)
    """
    _shown(functools.partial(_print_batch, config), commands.batch, config, engine=engine, out=out,
           processes=processes, algorithm=algorithm, master=master, partitions=partitions, full=full,
           progress=functools.partial(_reading, config))


def _reading(config: Config, total: int) -> _progress:
    """Say which table the batch reads, and show its progress through it."""
    click.echo(f"source: {config.source.table} in {_short_url(config)}, {total:,} rows", err=True)
    return _progress(total, "fingerprinting")


def _print_batch(config: Config, batch: commands.Batch) -> None:
    result = batch.result
    written = result.dedup_match
    rate = result.rows_with_similar / max(result.rows, 1)
    if result.rerun:
        click.echo(f"rows read: {result.rows:,}; sketched (new or changed since the last batch): "
                   f"{result.sketched:,}; decided again (around a change): {result.decided:,}")
    click.echo(f"rows fingerprinted: {result.rows:,} (written to the store since the last batch: "
               f"{result.added:,} new, {result.changed:,} changed, {result.removed:,} removed)")
    left_out = getattr(result, "left_out", [])
    if left_out:
        from .jobs.stages import LEFT_OUT_NAMED

        click.echo(commands.left_out_said(len(left_out), left_out[:LEFT_OUT_NAMED]))
    click.echo(f"similar pairs ({_similar_means(config)}): {len(result.pairs[0]):,}")
    if result.copies:
        click.echo(f"copies: {result.copies:,} rows have the text of an earlier row, and are paired with "
                   f"the first of them, not with each other")
    click.echo(f"groups: {len(result.groups):,} ({result.rows_with_similar:,} rows with a similar row, "
               f"duplicate rate {rate:.1%})")
    click.echo("time: " + ", ".join(f"{phase} {s:.2f} s" for phase, s in result.seconds.items()))
    where = config.store.mongo_uri and _mask(config.store.mongo_uri) or f"{config.store.data_dir}/mongo"
    if result.replayed:
        click.echo(f"rows changed by incremental checks during the batch, filed again: {result.replayed:,}")
    click.echo(f"results: run {result.run}, block index, pairs and groups of database "
               f"{config.store.database!r} in {where}; export with `dedup-pipeline report`")
    if written is None:
        click.echo(f"dedup_match: not written (no such table in {_short_url(config)}; "
                   f"`dedup-pipeline migrate` creates it)")
    else:
        click.echo(f"dedup_match: {written:,} rows (every pair, both ways) replaced the previous batch's")
    found = getattr(result, "matters", None)
    if found is not None:
        click.echo(f"matters (热点事项): {found.matters:,} ({found.in_matters:,} rows of {found.marked:,} naming an "
                   f"object and a problem; dedup_matter: {found.written:,} rows written, {found.removed:,} removed); "
                   f"export with `dedup-pipeline report --matters --out FILE`")
    if getattr(result, "queue", None) is not None:
        click.echo(f"queue: {result.queue:,} items the rule cannot settle (similar texts nothing else links), "
                   f"for a reviewer: `dedup-pipeline report --possible --out FILE` or `dedup-pipeline serve`")
    if batch.fingerprints:
        click.echo(f"fingerprints written to {batch.fingerprints}")


def _similar_means(config: Config) -> str:
    if config.shingles:
        s = config.scheme
        return (f"shingles: text similarity >= {s.threshold:g} (or {s.containment:.0%} contained) with a "
                f"shared submitter, or another's copy: at most {s.slips} single character(s) and "
                f"{s.numbers} number(s) changed, no word replaced" + (f", filed within {s.days} days" if s.filed else "")
                + (", or linked through a third row" if s.corroborate else "") + "; distance = 1 - similarity")
    return f"SimHash distance <= {config.fingerprint.k} bits"


@main.command()
@with_config
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, writable=True), help="Write pairs or groups here.")
@click.option("--groups", "want_groups", is_flag=True, help="Export the groups instead of the pairs.")
@click.option("--html", type=click.Path(dir_okay=False, writable=True), help="Write the admin HTML report here.")
@click.option("--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True)
@click.option("--possible", is_flag=True, help="Export the queue of what the rule cannot settle (possible "
              "pairs and groups, never duplicates) instead of the pairs.")
@click.option("--matters", "want_matters", is_flag=True, help="Export the matters (热点事项: rows of different "
              "people about one object and problem) instead of the pairs, one line each.")
def report(config: Config, fmt: str, out: str | None, want_groups: bool, html: str | None, lang: str,
           possible: bool, want_matters: bool) -> None:
    """Export the last batch's pairs (each with its status: auto, or confirmed by a
    reviewer) or groups (JSONL, or CSV with a BOM for Excel), or the queue (--possible), or
    the matters (--matters), or write the admin HTML report.

    Example: dedup-pipeline report --html report.html && dedup-pipeline report --format csv --groups --out groups.csv
    """
    if possible + want_groups + want_matters > 1:
        raise click.UsageError("--possible, --groups and --matters are three exports: give one")
    _shown(_print_report, commands.report, config, out=out, fmt=fmt, groups=want_groups, html=html, lang=lang,
           possible=possible, matters=want_matters)


def _print_report(report: commands.Report) -> None:
    if report.out:
        what = ("items of the queue" if report.possible else "matters" if report.matters
                else "rows of groups" if report.groups else "pairs")
        click.echo(f"{report.lines:,} lines ({what}) written to {report.out}")
    if report.html:
        click.echo(f"report written to {report.html}")


@main.command()
@with_config
@click.argument("text", required=False)
@click.option("--csv", "csv_path", type=click.Path(exists=True, dir_okay=False),
              help="Fingerprint each row of this CSV file (header names the columns).")
@click.option("--field", "field_name", help="The long field a TEXT argument fills "
              "(default: the first long field of the configuration).")
@click.option("--explain", is_flag=True, help="Also list the features and weights behind a SimHash "
              "fingerprint, or the text a shingles sketch compares and where its keys come from.")
def fingerprint(config: Config, text: str | None, csv_path: str | None, field_name: str | None,
                explain: bool) -> None:
    """Print what the configured scheme files of a TEXT (argument or stdin) or of CSV rows:
    the hex fingerprint, then its block keys (SimHash), or its shingle counts, keys and
    submitter hashes (shingles).

    Example: echo "小区物业乱收费，再次反映" | dedup-pipeline fingerprint --explain
    """
    if text is None and not csv_path:
        if sys.stdin.isatty():
            raise InputError("give a TEXT argument, pipe text on stdin, or use --csv FILE")
        text = sys.stdin.read()
    _shown(_print_filed, commands.fingerprint, config, text=text, csv_path=csv_path, field_name=field_name,
           explain=explain)


def _print_filed(rows: Iterator[commands.Filed]) -> None:
    from .core.explain import render_filed

    for label, entry in rows:
        click.echo(render_filed(entry, label))


def from_option(command: Callable) -> Callable:
    """--from: where `watch` learns which rows changed, over `[watch] changes`."""
    return click.option("--from", "changes", type=click.Choice(["triggers", "binlog"]), default=None,
                        help="Where watch learns of changed rows: the outbox the triggers fill, or the "
                             "server's row-based binary log (no trigger). Default: [watch] changes.")(command)


@main.command("config")
@with_config
@click.option("--check", is_flag=True, help="Also connect to the source and check the table and columns "
              "(and, for --from binlog, the server's settings and the account's grants).")
@from_option
def show_config(config: Config, check: bool, changes: str | None) -> None:
    """Print the effective configuration (file + environment), passwords masked.

    Example: DEDUP_SQL_URL=mysql+pymysql://app:secret@db/petitions dedup-pipeline config --check
    """
    config = _following(config, changes)
    _shown(functools.partial(_print_configuration, config), commands.configuration, config, check=check)


def _print_configuration(config: Config, shown: commands.Configuration) -> None:
    click.echo(json.dumps(shown.settings, ensure_ascii=False, indent=2))
    if shown.rows is not None:
        click.echo(f"ok: table {config.source.table!r} has the id column and every field "
                   f"({shown.rows:,} rows)", err=True)
    if shown.binlog is not None:
        click.echo(f"ok: the binary log is row-based with full row images, the account may read it "
                   f"(it ends at {shown.binlog}), and {config.source.table!r} is set up to follow", err=True)


def _following(config: Config, changes: str | None) -> Config:
    from .config import following

    return following(config, changes)


@main.command()
@with_config
@click.option("--json", "as_json", is_flag=True, help="Print every figure as one JSON object, with \"healthy\" "
              "and \"problems\".")
@from_option
def status(config: Config, as_json: bool, changes: str | None) -> None:
    """Whether the pipeline runs, for cron or monitoring (Zabbix, Nagios): the live batch
    (when, rows, how long), the store (format, size), the changes `watch` has not processed
    (the outbox's backlog and its oldest entry, or how far behind the binary log it is), the
    review queue's open items, and the decisions made today.

    Exit codes: 0 healthy; 1 unhealthy: a threshold passed (the live batch older than
    [status] batch_max_age_hours, a change waiting longer than [status]
    change_max_age_minutes), no batch yet, or a part the pipeline needs cannot be read (the
    last line says what); 2 a configuration error.

    Example: dedup-pipeline status --json    (cron, Zabbix, Nagios: exit 1 when unhealthy)
    """
    config = _following(config, changes)
    _shown(functools.partial(_print_status, config, as_json=as_json), commands.status, config)


def _print_status(config: Config, found: commands.Status, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(found.figures(), ensure_ascii=False, default=str))
    else:
        for part, mark, text in _status_lines(config, found):
            click.echo(f"{part:<10} {mark:<5}  {text}")
        warned = f" (warnings: {', '.join(found.warnings)}, above)" if found.warnings else ""
        click.echo(f"healthy{warned}" if found.healthy else
                   "unhealthy: " + "; ".join(f"{part}: {problem}" for part, problem in found.problems.items()))
    click.get_current_context().exit(EXIT_OK if found.healthy else EXIT_ERROR)


def _status_lines(config: Config, found: commands.Status) -> Iterator[tuple[str, str, str]]:
    """(part, OK / ALERT / - where no threshold applies, its figures) of each part."""
    def mark(part: str) -> str:
        return ("ALERT" if part in found.problems else "-" if part in found.unread
                else "WARN" if part in found.warnings else "OK")

    store, unread = found.store, found.unread
    live = store.live if store else None
    if "batch" in unread:
        batch = f"not read: {unread['batch']}"
    elif live is None:
        batch = "none has gone live yet"
    else:
        took = "" if live.seconds is None else f"; took {live.seconds:,.1f} s"
        batch = (f"live since {_local(live.live_since)} ({found.batch_age_hours:,.1f} h ago; at most "
                 f"{found.batch_max_age_hours:g} h): {live.rows:,} rows, {live.pairs:,} pairs, "
                 f"{live.groups:,} groups{took} (run {live.run})")
        if "batch" in found.warnings:
            batch += f"; {found.warnings['batch']}"
    if store and store.building_since:
        batch += f"; a batch building since {_local(store.building_since)}"
    yield "batch", mark("batch"), batch
    if store is None:
        yield "store", mark("store"), f"cannot read: {unread['store']}"
    else:
        size = _size(store.size) + f" ({store.measured})" if store.size is not None else f"size {store.measured}"
        newer = f" (this version reads up to {store.supported})" if store.format != store.supported else ""
        shown = "" if store.format is None else f"format {store.format}{newer}, "
        kind = {"embedded": "the embedded store", "mongodb": "MongoDB"}.get(store.kind, store.kind)
        yield "store", mark("store"), f"{kind} at {store.where}, database {config.store.database!r}: {shown}{size}"
    yield "changes", mark("changes"), _changes_line(found)
    items = found.queue
    if items is None:
        yield "queue", "-", f"not read: {unread['queue']}"
    else:
        pairs = sum(item.kind == "pair" for item in items)
        yield "queue", "-", (f"{_count(len(items), 'open item')} for a reviewer ({_count(pairs, 'pair')}, "
                             f"{_count(len(items) - pairs, 'group')})")
    yield "decisions", "-", (f"not read: {unread['decisions']}" if found.decided_today is None
                             else f"{found.decided_today:,} made today")


def _changes_line(found: commands.Status) -> str:
    limit = f"at most {found.change_max_age_minutes:g} min"
    if "changes" in found.unread:
        return f"not read: {found.unread['changes']}"
    if found.backlog is not None:
        b = found.backlog
        oldest = f", the oldest waiting {b.age / 60:,.1f} min" if b.age is not None else ""
        failed = f", {b.failed:,} of them failed (last_error in dedup_outbox)" if b.failed else ""
        return f"outbox: {_count(b.pending, 'change')} not processed{oldest}{failed} ({limit})"
    lag = found.lag
    if lag is None:
        return "not read"
    end = f"the log ends at {lag.end}" if lag.end else "binary logging is off"
    if lag.stored is None:
        return f"binary log: no position stored yet; {end}"
    behind = "" if lag.behind is None else f": {lag.behind:,} bytes behind"
    why = "".join(f"; {text}" for text in (lag.stored.stopped, lag.unreadable) if text)
    return (f"binary log: position {lag.stored.position} stored {lag.age / 60:,.1f} min ago, {end}{behind}"
            f"{why} ({limit} once the log moves on)")


def _local(moment: Any) -> str:
    """A time MongoDB gave (UTC, naive) in this machine's time zone."""
    import datetime as dt

    return moment.replace(tzinfo=dt.timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M %Z")


def _count(n: int, thing: str) -> str:
    return f"{n:,} {thing}{'' if n == 1 else 's'}"


def _size(size: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if size < 1000:
            return f"{size:,.0f} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1000
    return f"{size:,.1f} TB"


@main.command()
@with_config
@click.option("--sql", is_flag=True, help="Print the SQL instead of applying it, for a DBA "
              "(assumes an integer id column).")
@click.option("--downgrade", "down", is_flag=True, help="Remove the triggers and tables instead.")
@from_option
def migrate(config: Config, sql: bool, down: bool, changes: str | None) -> None:
    """Create dedup_outbox, its triggers on the configured table, and dedup_match; and
    the MongoDB indexes.

    The triggers enqueue every inserted, updated and deleted row for the `watch` worker.
    With --from binlog: dedup_match and the binary log position tables instead, no
    trigger and no outbox (--sql adds the server settings and grants it needs).

    Example: dedup-pipeline migrate --sql > dedup-migration.sql    (dedup-pipeline migrate --from binlog --sql)
    """
    config = _following(config, changes)
    _shown(functools.partial(_print_migration, config), commands.migrate, config, sql=sql, down=down)


def _print_migration(config: Config, migration: commands.Migration) -> None:
    if migration.sql is not None:
        click.echo(migration.sql, nl=False)
        return
    where = f"{config.source.table!r} in {_short_url(config)}"
    if migration.down and migration.kept:
        click.echo(f"removed the dedup triggers on {where} and its rows in the dedup tables, which stay for "
                   f"{', '.join(migration.kept)}")
        return
    if migration.down:
        click.echo(f"removed the dedup triggers on {where}, dedup_outbox, the binlog position tables and dedup_match")
        return
    if config.watch.changes == "binlog":
        click.echo(f"dedup_match and the binlog position tables for {where} are up to date (no trigger); "
                   f"`dedup-pipeline batch` next: it stores where the log is, for `watch --from binlog`")
    else:
        click.echo(f"dedup_outbox, its triggers on {where}, and dedup_match are up to date")
    if migration.indexes:
        click.echo(f"MongoDB indexes of database {config.store.database!r} in {migration.indexes} are up to date")


@main.command()
@with_config
@click.option("--once", is_flag=True, help="Process every pending entry, then exit (for cron).")
@click.option("--batch-size", type=click.IntRange(min=1), default=200, show_default=True,
              help="Outbox entries claimed per transaction.")
@click.option("--poll", type=click.FloatRange(min=0.001), default=0.05, show_default=True,
              help="Seconds between looks at an empty outbox.")
@click.option("--max-attempts", type=click.IntRange(min=1), default=5, show_default=True,
              help="An entry failing this often is kept with its error and no longer retried.")
@from_option
def watch(config: Config, once: bool, batch_size: int, poll: float, max_attempts: int, changes: str | None) -> None:
    """增量处理 as rows arrive: check and file every row the triggers put in dedup_outbox,
    and write its similar rows to dedup_match.

    Several workers can run at once. SIGTERM or Ctrl-C stops after the current batch
    (exit 0); a database or MongoDB outage is logged and waited out. Needs
    `dedup-pipeline migrate` first, and `dedup-pipeline batch` for the rows that were
    there before (it writes their pairs too; `add --all` does not).

    With --from binlog, the rows the server's row-based binary log says changed, no
    trigger needed (`migrate --from binlog`, then `batch`, first); --once reads up to where
    the log ended at the start.

    Example: dedup-pipeline watch --config my.toml    (cron: dedup-pipeline watch --once; or watch --from binlog)
    """
    import logging

    from .jobs.watch import WatchSettings, watch as run_watch

    config = _following(config, changes)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr, force=True)
    settings = WatchSettings(batch_size=batch_size, poll=poll, max_attempts=max_attempts, once=once)
    _shown(_print_stopped, run_watch, config, settings)


def _print_stopped(totals: Tally) -> None:
    click.echo(f"stopped: {totals.line()}", err=True)


EXIT_SIMILAR = 3  # check, add --id: similar rows found


class _IdArguments(click.Command):
    """A command whose arguments are row ids, negative ones too: `explain -1 -2` needs no
    `--`. An unknown option of its own (`--jsn`) is still refused."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.ignore_unknown_options = True  # "-1" is kept, in its place, as an argument

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        options = {name: param for param in self.get_params(ctx) if isinstance(param, click.Option)
                   for name in param.opts + param.secondary_opts}
        value_next = False  # the argument is the value of the option before it (--config FILE)
        for arg in itertools.takewhile(lambda a: a != "--", args):
            name, equals, _ = arg.partition("=")
            if not value_next and arg.startswith("-") and name not in options and not re.fullmatch(r"-[0-9]+", arg):
                raise click.NoSuchOption(name, possibilities=sorted(options), ctx=ctx)
            option = None if value_next else options.get(name)
            value_next = option is not None and not option.is_flag and not equals
        return super().parse_args(ctx, args)


@main.command(cls=_IdArguments)
@with_config
@click.argument("first")
@click.argument("second")
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
def explain(config: Config, first: str, second: str, as_json: bool) -> None:
    """Why two rows of the configured table are (or are not) similar: the decision over
    them and the stored rows around them, the fields that agree, what differs, and the weights.

    Example: dedup-pipeline explain 1042 1187
    """
    _shown(functools.partial(_print_explanation, as_json=as_json), commands.explain, config, first, second)


def _print_explanation(explanation: commands.Explanation, as_json: bool) -> None:
    from .core.explain import render

    a, b = explanation.ids
    if as_json:
        click.echo(json.dumps({"a": a, "b": b, **explanation.reasons}, ensure_ascii=False, default=str))
    else:
        click.echo(render(explanation.reasons, explanation.ids))
        matter = explanation.reasons.get("matter")
        if matter:
            held = matter["matters"]
            now = (f"one matter now, {held[0]}" if held[0] is not None and held[0] == held[1]
                   else "in no matter now" if held == [None, None] else "in matters " + " and ".join(map(str, held)))
            click.echo(f"matter (热点事项): {'linked' if matter['linked'] else 'not linked'}: {matter['reason']}; {now}")


@main.command()
@with_config
@click.option("--id", "row_id", help="Check this row of the configured table (never against itself).")
@click.option("--text", help="Check this text, read as the first long field.")
@click.option("--mode", type=click.Choice(["exists", "all"]), default="all", show_default=True,
              help="exists: stop at the first similar row; all: every similar row, nearest first.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def check(config: Config, row_id: str | None, text: str | None, mode: str, as_json: bool) -> None:
    """增量处理: list the stored rows similar to a row (--id) or a text (--text).

    Exit codes, for a trigger or a script: 0 no similar row, 3 similar rows found,
    1 an error (database, input), 2 a configuration or usage error.

    Example: dedup-pipeline check --id 1042 --mode exists || echo "1042 repeats a stored row"
    """
    if (row_id is None) == (text is None):
        raise click.UsageError("give --id N or --text TEXT")
    _shown(functools.partial(_print_check, mode=mode, as_json=as_json), commands.check, config,
           row_id=row_id, text=text, mode=mode)


def _print_check(checked: Checked, mode: str, as_json: bool) -> None:
    matches = checked.similar
    if as_json:
        similar, possible = ([{"id": m.row, "distance": m.distance} for m in found]
                             for found in (checked.similar, checked.possible))
        matter = checked.matter and {"matter": checked.matter.matter, "rows": checked.matter.rows,
                                     "object": checked.matter.object, "problem": checked.matter.problem,
                                     "people": checked.matter.people, "first": checked.matter.first.isoformat(),
                                     "last": checked.matter.last.isoformat()}
        click.echo(json.dumps({"mode": mode, "similar": similar, "possible": possible, "matter": matter},
                              ensure_ascii=False, default=str))
    else:
        for match in matches:
            click.echo(f"{match.row}\t{match.distance}")
        if not matches:
            click.echo("no similar row", err=True)
    click.get_current_context().exit(EXIT_SIMILAR if matches else EXIT_OK)


@main.command()
@with_config
@click.option("--id", "row_ids", multiple=True, help="Add this row of the configured table (repeatable).")
@click.option("--all", "add_all", is_flag=True, help="Add every row of the configured table.")
def add(config: Config, row_ids: tuple[str, ...], add_all: bool) -> None:
    """增量处理: file rows in the stored index; a changed row leaves its old blocks.

    Each row added by --id is checked too: its similar rows are printed as
    `added-id<TAB>similar-id<TAB>distance`.

    Exit codes: 0 added, no similar row; 3 similar rows found; 1 an error
    (database, input); 2 a configuration or usage error.

    Example: dedup-pipeline add --all && dedup-pipeline add --id 1043
    """
    if bool(row_ids) == add_all:
        raise click.UsageError("give --id N (repeatable) or --all")
    _shown(functools.partial(_print_added, config), commands.add, config, None if add_all else row_ids)


def _print_added(config: Config, added: commands.Added) -> None:
    if added.written is not None:
        click.echo(f"added {added.written:,} new or changed row(s) of {config.source.table}; their pairs are not in "
                   f"dedup_match: `dedup-pipeline batch` files the rows and writes them (start `watch` after it)",
                   err=True)
    for row, matches in added.similar.items():
        for match in matches:
            click.echo(f"{row}\t{match.row}\t{match.distance}")
    click.get_current_context().exit(EXIT_SIMILAR if any(added.similar.values()) else EXIT_OK)


def _shown(show: Callable[[Any], None], call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Call the command's library function and show what it returns; when it fails after
    part of its work, show that part (the error's `done`) before `with_config` makes the
    error a line."""
    try:
        result = call(*args, **kwargs)
    except BaseException as e:
        if hasattr(e, "done"):
            show(e.done)
        raise
    show(result)


def _short_url(config: Config) -> str:
    return _mask(config.source.url)


def _mask(url: str) -> str:
    from .config import mask_url

    return mask_url(url)


class _progress:
    """A progress bar on a terminal, plain log lines otherwise; yields `advance(n)`."""

    def __init__(self, total: int, label: str):
        self.total, self.label, self.done, self.last = total, label, 0, 0.0

    def __enter__(self) -> Callable[[int], None]:
        if sys.stderr.isatty():
            from rich.progress import Progress

            self.bar = Progress(transient=False)
            self.bar.start()
            task = self.bar.add_task(self.label, total=self.total)
            return lambda n: self.bar.advance(task, n)
        self.bar = None
        return self._log

    def _log(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last > 5 or self.done >= self.total:
            self.last = now
            click.echo(f"{self.label}: {self.done:,}/{self.total:,} rows", err=True)

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


@main.command(cls=_IdArguments)
@with_config
@click.argument("first")
@click.argument("second")
@click.option("--same/--different", "same", required=True, help="The two rows are one petition, or are not.")
@click.option("--by", "by", required=True, help="The reviewer deciding (kept with the decision).")
@click.option("--note", help="Why, kept with the decision.")
def decide(config: Config, first: str, second: str, same: bool, by: str, note: str | None) -> None:
    """Record a reviewer's decision about two rows; every later run obeys it until either
    row changes (then it is stale and the pair goes back to the rule and the queue).
    dedup_match follows at once; the stored pairs and groups at the next batch.

    Example: dedup-pipeline decide 1042 1187 --different --by 王芳 --note "不同诉求"
    """
    _shown(_print_decided, review.decide, config, first, second, same=same, by=by, note=note)


def _print_decided(made: list) -> None:
    for d in made:
        click.echo(f"{d.row_id} and {d.other_id}: {d.verdict}, decided by {d.reviewer}")


@main.command(cls=_IdArguments)
@with_config
@click.argument("verdict", type=click.Choice(["apart", "back", "together", "separate"]))
@click.argument("row")
@click.argument("other", required=False)
@click.option("--by", "by", required=True, help="The reviewer deciding (kept with the decision).")
def matter(config: Config, verdict: str, row: str, other: str | None, by: str) -> None:
    """Record a reviewer's decision on matters (热点事项), obeyed at once and by every later
    run: apart (ROW is in no matter, whatever it names), back (undo apart), together (the
    matters of ROW and OTHER are one), separate (undo together).

    Example: dedup-pipeline matter together 1042 2210 --by 王芳
    """
    _shown(lambda now: click.echo(f"row {row}: {'in no matter' if now is None else f'in matter {now}'}"),
           review.matter_decide, config, verdict, row, other, by=by)


@main.group(invoke_without_command=True)
@with_config
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl"]), default="csv", show_default=True)
@click.option("--out", default="-", show_default=True, help="Write the decisions here (-: standard output).")
@click.pass_context
def decisions(ctx: click.Context, config: Config, fmt: str, out: str) -> None:
    """Export every reviewer's decision (the whole history, oldest first), or load an
    export into this database (`decisions import FILE`).

    Example: dedup-pipeline decisions --format jsonl --out decisions.jsonl
    """
    if ctx.invoked_subcommand is None:
        n = review.decisions_export(config, out, fmt)
        if out != "-":
            click.echo(f"{n:,} decisions written to {out}")


@decisions.command("import")
@with_config
@click.argument("path", type=click.Path(dir_okay=False))
def decisions_import(config: Config, path: str) -> None:
    """Append the decisions of a file `decisions` wrote (csv or jsonl) to dedup_decision.

    Example: dedup-pipeline decisions import decisions.jsonl
    """
    click.echo(f"{review.decisions_import(config, path):,} decisions imported from {path}")


# ---------------------------------------------------------------- the review console: serve, reviewer

@main.command()
@with_config
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; keep 127.0.0.1 and put an HTTPS reverse proxy in front (README).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port, printed when the console is ready).")
@click.option("--behind-proxy", is_flag=True, help="Reached through an HTTPS reverse proxy: cookies are "
              "sent over HTTPS only, and the client's address comes from X-Forwarded-For.")
def serve(config: Config, host: str, port: int, behind_proxy: bool) -> None:
    """The review console: reviewers sign in, work through the queue of what the rule cannot
    settle, and decide (same / different); every later run obeys them. Needs `migrate` and
    `reviewer add` first. Ctrl-C stops it.

    Example: dedup-pipeline reviewer add wang < password.txt && dedup-pipeline serve --port 8765
    """
    def ready(url: str) -> None:
        click.echo(f"review console on {url} (Ctrl-C stops it)", err=True)

    commands.serve(config, host=host, port=port, behind_proxy=behind_proxy, ready=ready,
                   warn=lambda said: click.echo(f"Warning: {said}", err=True))


@main.group(context_settings={"help_option_names": ["-h", "--help"]})
def reviewer() -> None:
    """Who may sign in to the review console and see what (`reviewer add NAME`, `reviewer
    list`, `reviewer disable NAME`, `reviewer enable NAME`, `reviewer remove NAME`).

    Example: dedup-pipeline reviewer add wang    (asks for the password twice)
    """


@reviewer.command("add")
@with_config
@click.argument("name")
@click.option("--replace", is_flag=True, help="Give an existing reviewer a new password and role (every "
              "session of theirs ends).")
@click.option("--sees-phones", is_flag=True, help="Show this reviewer phone numbers unmasked (others see "
              "138****0000 in the [console] masked_columns).")
def reviewer_add(config: Config, name: str, replace: bool, sees_phones: bool) -> None:
    """Let NAME sign in to the review console. The password is read from stdin when it is
    not a terminal (one line), else asked for twice; it is stored as a scrypt hash.

    Example: printf '%s\\n' "$PASSWORD" | dedup-pipeline reviewer add wang --sees-phones
    """
    if sys.stdin.isatty():
        password = click.prompt("password", hide_input=True, confirmation_prompt=True, err=True)
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    _shown(lambda added: click.echo(f"reviewer {added.name!r} may sign in to the console"
                                    + (", phone numbers unmasked" if added.sees_phones else ""), err=True),
           review.reviewer_add, config, name, password, replace=replace, sees_phones=sees_phones)


@reviewer.command("list")
@with_config
def reviewer_list(config: Config) -> None:
    """List the reviewers: name, when added, and their role (sees phones) or state (disabled).

    Example: dedup-pipeline reviewer list
    """
    def show(found: list) -> None:
        for r in found:
            said = [w for w, on in (("sees phones", r.sees_phones), ("disabled", r.disabled)) if on]
            click.echo("\t".join([r.name, f"{r.created_at:%Y-%m-%d %H:%M}" if r.created_at else "-", *said]))
        if not found:
            click.echo("no reviewer yet: `dedup-pipeline reviewer add NAME`", err=True)

    _shown(show, review.reviewer_list, config)


@reviewer.command("disable")
@with_config
@click.argument("name")
def reviewer_disable(config: Config, name: str) -> None:
    """Stop NAME signing in: every console session of theirs ends at once, until `reviewer
    enable NAME`; their decisions stay.

    Example: dedup-pipeline reviewer disable wang
    """
    _shown(lambda done: click.echo(f"reviewer {done.name!r} disabled; their sessions are over", err=True),
           review.reviewer_disable, config, name)


@reviewer.command("enable")
@with_config
@click.argument("name")
def reviewer_enable(config: Config, name: str) -> None:
    """Let a disabled reviewer NAME sign in again (with the password they had).

    Example: dedup-pipeline reviewer enable wang
    """
    _shown(lambda done: click.echo(f"reviewer {done.name!r} may sign in again", err=True),
           review.reviewer_disable, config, name, disabled=False)


@reviewer.command("remove")
@with_config
@click.argument("name")
def reviewer_remove(config: Config, name: str) -> None:
    """Take NAME out of the reviewers: their console sessions end at once (their next
    request is refused, even while `serve` runs); the decisions they made stay.

    Example: dedup-pipeline reviewer remove wang
    """
    _shown(lambda removed: click.echo(f"reviewer {removed.name!r} removed; their sessions are over", err=True),
           review.reviewer_remove, config, name)


@main.command("access-log")
@with_config
@click.option("--out", default="-", show_default=True, help="Write the access log here as CSV (-: standard output).")
@click.option("--since", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"]), metavar="DATE",
              help="Only what was viewed from this day (or time, the database server's) on.")
def access_log(config: Config, out: str, since: Any) -> None:
    """Export the review console's access log: who was shown which row of the table, when,
    on which page, from which address (CSV: viewed_at, reviewer, page, row_id, address,
    source_table), oldest first.

    Example: dedup-pipeline access-log --since 2025-03-01 --out access.csv
    """
    n = review.access_log_export(config, out, since)
    if out != "-":
        click.echo(f"{n:,} rows viewed written to {out}", err=True)


# ---------------------------------------------------------------- the embedded store's server

@main.group(context_settings={"help_option_names": ["-h", "--help"]})
def store() -> None:
    """The embedded store's server of the data folder, which every command shares: the first
    command that needs it starts it, and it ends `[store] idle_s` after the last one.

    Example: dedup-pipeline store serve    (as a service of its own: dedup-store.service)
    """


@store.command("serve")
@with_config
def store_serve(config: Config) -> None:
    """Run the embedded store's server in the foreground until SIGTERM or Ctrl-C, for every
    other command to find: the store as a service of its own, never stopped for idling.

    Example: dedup-pipeline store serve --config /etc/dedup-pipeline/dedup.toml
    """
    def ready(uri: str) -> None:
        click.echo(f"the store in {config.store.data_dir} is served at {uri} (Ctrl-C stops it)", err=True)

    commands.store_serve(config, ready=ready)


@store.command("stop")
@with_config
def store_stop(config: Config) -> None:
    """Stop the embedded store's server, once its files are closed (a backup, an upgrade).
    The commands using it fail; `watch` starts it again.

    Example: dedup-pipeline store stop && tar czf dedup-data.tgz dedup-data
    """
    stopped = commands.store_stop(config)
    click.echo(f"the store's server in {config.store.data_dir} {'stopped' if stopped else 'was not running'}",
               err=True)


# ---------------------------------------------------------------- one server's service files

@main.group(context_settings={"help_option_names": ["-h", "--help"]})
def deploy() -> None:
    """Service files for one server, made by the package (`deploy systemd --out DIR`).

    Example: dedup-pipeline deploy systemd --config petition.toml --workdir /srv/dedup --out units
    """


@deploy.command("systemd")
@with_config
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The folder to write the files to.")
@click.option("--workdir", type=click.Path(file_okay=False), help="The services' working folder, where a relative "
              "[store] data_dir is (default: this folder); run cron jobs from there too.")
@click.option("--user", default=deployment.USER, show_default=True, help="The user the services run as.")
@click.option("--group", default=deployment.GROUP, show_default=True, help="Their group.")
@click.option("--env-file", default=deployment.ENV_FILE, show_default=True,
              help="The environment file with the secrets (DEDUP_SQL_URL, DEDUP_MONGO_URI).")
@click.option("--port", type=click.IntRange(1, 65535), default=deployment.PORT, show_default=True,
              help="The review console's port on 127.0.0.1, behind the HTTPS reverse proxy.")
def deploy_systemd(config: Config, out: str, workdir: str | None, user: str, group: str, env_file: str,
                   port: int) -> None:
    """Write systemd units for one server to --out: dedup-store.service (the embedded
    store's server, when no MongoDB server is configured), dedup-watch.service,
    dedup-serve.service, dedup-batch.service and its nightly dedup-batch.timer; with
    env.example and README.txt, which says how to install them. They run this installation's
    dedup-pipeline, with this --config, in --workdir.

    Example: dedup-pipeline deploy systemd --config petition.toml --workdir /srv/dedup --out units
    """
    _shown(_print_deployed, commands.deploy_systemd, config, out, workdir=workdir, user=user, group=group,
           env_file=env_file, port=port)


def _print_deployed(written: deployment.Written) -> None:
    s = written.settings
    click.echo(f"wrote {', '.join(written.files)} to {written.out}")
    click.echo(f"they run {' '.join(s.program)} in {s.workdir} as {s.user}:{s.group}, "
               + ("the embedded store served by dedup-store.service" if written.embedded
                  else "with the MongoDB server of the configuration"))
    if written.config_file is None:
        click.echo("no --config: the units run the built-in sample; write them again with --config FILE "
                   "for your table", err=True)
    click.echo(f"to install them: {written.out / 'README.txt'}")
