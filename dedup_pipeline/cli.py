"""The `dedup-pipeline` command: each command loads the configuration, calls one library
function and turns library errors into a clean message and exit code at the edge."""

from __future__ import annotations

import contextlib
import csv
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

from . import __version__
from .errors import EXIT_CONFIG, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, DedupError

if TYPE_CHECKING:
    from .config import Config


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
    """A filesystem error as one line: what failed, and on which file."""
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{error.strerror or error}"


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
def batch(config: Config, processes: int | None, out: str | None, algorithm: str, engine: str,
          master: str | None, partitions: int | None) -> None:
    """集中处理: fingerprint every row of the configured table, find every similar pair,
    group them, and store the pairs and groups in MongoDB.

    Example: dedup-pipeline batch --out fingerprints.csv    (on Spark: dedup-pipeline batch --engine spark)
    """
    from .jobs.batch import check_algorithm, run_batch
    from .sql.source import SqlSource
    from .jobs.spark import run_spark_batch
    from .store.index import open_store

    check_algorithm(config, algorithm)
    if engine == "spark" and out:
        raise CliError("--out (fingerprints) is for --engine local", EXIT_CONFIG)
    _check_writable(out, "--out")
    run = (functools.partial(run_spark_batch, master=master, partitions=partitions) if engine == "spark"
           else functools.partial(run_batch, processes=processes, algorithm=algorithm))
    with SqlSource(config) as source:
        total = source.count()
    click.echo(f"source: {config.source.table} in {_short_url(config)}, {total:,} rows", err=True)
    with open_store(config) as store, _progress(total, "fingerprinting") as advance:
        result = run(config, store, advance)
    written = result.dedup_match
    rate = result.rows_with_similar / max(result.rows, 1)
    click.echo(f"rows fingerprinted: {result.rows:,} (written to the store since the last batch: "
               f"{result.added:,} new, {result.changed:,} changed, {result.removed:,} removed)")
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
    if out:
        with _writing(out, "the fingerprints", "the batch's results are stored all the same"):
            _write_fingerprints(out, config.source.id_column, result)
        click.echo(f"fingerprints written to {out}")


def _write_fingerprints(path: str, id_column: str, result: Any) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([id_column, "fingerprint"])
        writer.writerows((i, f"{int(fp):016x}") for i, fp in zip(result.ids, result.fingerprints))


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
def report(config: Config, fmt: str, out: str | None, want_groups: bool, html: str | None, lang: str) -> None:
    """Export the last batch's pairs or groups (JSONL, or CSV with a BOM for Excel), or
    write the admin HTML report.

    Example: dedup-pipeline report --html report.html && dedup-pipeline report --format csv --groups --out groups.csv
    """
    from .report.exports import export, write_html_report

    if not out and not html:
        raise CliError("give --out FILE (pairs or groups) and/or --html FILE", EXIT_CONFIG)
    _check_writable(out, "--out")
    _check_writable(html, "--html")
    if out:
        with _writing(out, "the export"):
            count = export(config, out, fmt, want_groups)
        click.echo(f"{count:,} lines ({'rows of groups' if want_groups else 'pairs'}) written to {out}")
    if html:
        with _writing(html, "the report"):
            write_html_report(config, html, lang)
        click.echo(f"report written to {html}")


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
    from .core.explain import filed, render_filed

    for label, row in _input_rows(config, text, csv_path, field_name):
        [entry] = filed(config, [row], explain)
        click.echo(render_filed(entry, label))


def _input_rows(config: Config, text: str | None, csv_path: str | None, field_name: str | None):
    if csv_path:
        yield from _csv_rows(config, csv_path)
        return
    if text is None:
        if sys.stdin.isatty():
            raise CliError("give a TEXT argument, pipe text on stdin, or use --csv FILE")
        text = sys.stdin.read()
    longs = [f.name for f in config.fields if f.role == "long"]
    name = field_name or (longs[0] if longs else None)
    if name is None or name not in {f.name for f in config.fields}:
        raise CliError(f"--field {name!r} is not a configured field; fields: "
                       f"{', '.join(f.name for f in config.fields)}", EXIT_CONFIG)
    yield None, {name: text}


def _csv_rows(config: Config, path: str) -> Iterator[tuple[Any, dict]]:
    """(label, row) of each row of a CSV file, fields of any length; a line the csv module
    cannot read is named by file and line."""
    reader = csv.DictReader(_utf8_lines(path))
    known = {fl.name for fl in config.fields}
    limit = csv.field_size_limit(CSV_FIELD_LIMIT)  # Python's default (131,072 characters) refuses a long text
    try:
        if not known & set(reader.fieldnames or ()):
            raise CliError(f"{path}: its header ({', '.join(reader.fieldnames or ())}) names "
                           f"none of the configured fields ({', '.join(sorted(known))})", EXIT_CONFIG)
        for number, row in enumerate(reader, 1):
            yield row.get(config.source.id_column, number), {k: v or None for k, v in row.items()}
    except csv.Error as e:
        raise CliError(f"{path}, line {reader.reader.line_num:,}: not valid CSV ({str(e).split(' - ')[0]}); quote "
                       f"a field holding line breaks, or save the file as \"CSV UTF-8\"") from None
    finally:
        csv.field_size_limit(limit)


CSV_FIELD_LIMIT = 2**31 - 1  # the largest a C long holds everywhere (Windows' is 32 bits)


def _utf8_lines(path: str) -> Iterator[str]:
    """The lines of a UTF-8 file (a BOM allowed), decoded one by one so that bytes in
    another encoding are named by line and byte."""
    offset = 0
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            try:
                yield line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as e:
                raise CliError(f"{path}, line {number} (byte {offset + e.start + 1:,} of the file): not UTF-8 "
                               f"({e.reason}); save the file as UTF-8 (in Excel: \"CSV UTF-8\")") from None
            offset += len(line)


@main.command("config")
@with_config
@click.option("--check", is_flag=True, help="Also connect to the source and check the table and columns.")
def show_config(config: Config, check: bool) -> None:
    """Print the effective configuration (file + environment), passwords masked.

    Example: DEDUP_SQL_URL=mysql+pymysql://app:secret@db/petitions dedup-pipeline config --check
    """
    click.echo(json.dumps({"config_file": config.path, **config.masked()}, ensure_ascii=False, indent=2))
    if check:
        from .sql.source import SqlSource

        source = SqlSource(config)
        click.echo(f"ok: table {config.source.table!r} has the id column and every field "
                   f"({source.count():,} rows)", err=True)


@main.command()
@with_config
@click.option("--sql", is_flag=True, help="Print the SQL instead of applying it, for a DBA "
              "(assumes an integer id column).")
@click.option("--downgrade", "down", is_flag=True, help="Remove the triggers and tables instead.")
def migrate(config: Config, sql: bool, down: bool) -> None:
    """Create dedup_outbox, its triggers on the configured table, and dedup_match; and
    the MongoDB indexes.

    The triggers enqueue every inserted, updated and deleted row for the `watch` worker.

    Example: dedup-pipeline migrate --sql > dedup-migration.sql
    """
    from .sql import migrate as migrations

    if sql:
        click.echo(migrations.downgrade_sql(config) if down else migrations.upgrade_sql(config), nl=False)
        return
    where = f"{config.source.table!r} in {_short_url(config)}"
    if down:
        migrations.downgrade(config)
        click.echo(f"removed the dedup triggers on {where}, dedup_outbox and dedup_match")
        return
    migrations.upgrade(config)
    click.echo(f"dedup_outbox, its triggers on {where}, and dedup_match are up to date")
    where_indexes = migrations.ensure_store_indexes(config)
    click.echo(f"MongoDB indexes of database {config.store.database!r} in {where_indexes} are up to date")


@main.command()
@with_config
@click.option("--once", is_flag=True, help="Process every pending entry, then exit (for cron).")
@click.option("--batch-size", type=click.IntRange(min=1), default=200, show_default=True,
              help="Outbox entries claimed per transaction.")
@click.option("--poll", type=click.FloatRange(min=0.001), default=0.05, show_default=True,
              help="Seconds between looks at an empty outbox.")
@click.option("--max-attempts", type=click.IntRange(min=1), default=5, show_default=True,
              help="An entry failing this often is kept with its error and no longer retried.")
def watch(config: Config, once: bool, batch_size: int, poll: float, max_attempts: int) -> None:
    """增量处理 as rows arrive: check and file every row the triggers put in dedup_outbox,
    and write its similar rows to dedup_match.

    Several workers can run at once. SIGTERM or Ctrl-C stops after the current batch
    (exit 0); a database or MongoDB outage is logged and waited out. Needs
    `dedup-pipeline migrate` first, and `dedup-pipeline batch` for the rows that were
    there before (it writes their pairs too; `add --all` does not).

    Example: dedup-pipeline watch --config my.toml    (cron: dedup-pipeline watch --once)
    """
    import logging

    from .jobs.watch import WatchSettings, watch as run_watch

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr, force=True)
    settings = WatchSettings(batch_size=batch_size, poll=poll, max_attempts=max_attempts, once=once)
    totals = run_watch(config, settings)
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
    """Why two rows of the configured table are (or are not) similar: the score or
    distance, the fields that agree, what differs, and the weights.

    Example: dedup-pipeline explain 1042 1187
    """
    from .core.explain import explain_pair, render
    from .sql.source import SqlSource

    with SqlSource(config) as source:
        a, b = (_source_row(config, row_id, source) for row_id in (first, second))
    explained = explain_pair(config, a, b)
    ids = (a[config.source.id_column], b[config.source.id_column])
    if as_json:
        click.echo(json.dumps({"a": ids[0], "b": ids[1], **explained}, ensure_ascii=False, default=str))
    else:
        click.echo(render(explained, ids))


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
    row = text if row_id is None else _source_row(config, row_id)
    own_id = None if row_id is None else row[config.source.id_column]
    matches = _with_index(config, lambda index: index.check(row, mode, exclude=own_id))
    if as_json:
        similar = [{"id": m.row, "distance": m.distance} for m in matches]
        click.echo(json.dumps({"mode": mode, "similar": similar}, ensure_ascii=False, default=str))
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
    from .sql.source import SqlSource

    with SqlSource(config) as source:
        rows = [_source_row(config, i, source) for i in row_ids]
        found = _with_index(config, lambda index: _add_rows(index, config, source, rows))
    for added, matches in found.items():
        for match in matches:
            click.echo(f"{added}\t{match.row}\t{match.distance}")
    click.get_current_context().exit(EXIT_SIMILAR if any(found.values()) else EXIT_OK)


def _add_rows(index: Any, config: Config, source: Any, rows: list[dict]) -> dict:
    """Add the given rows (checking each) or, with none given, every row."""
    id_column = config.source.id_column
    if rows:
        return {row[id_column]: index.add_and_check(row[id_column], row) for row in rows}
    written = index.add_many((row[id_column], row) for chunk in source.rows() for row in chunk)
    click.echo(f"added {written:,} new or changed row(s) of {config.source.table}; their pairs are not in "
               f"dedup_match: `dedup-pipeline batch` files the rows and writes them (start `watch` after it)", err=True)
    return {}


def _source_row(config: Config, row_id: str, source: Any = None) -> dict:
    """A row of the configured table by id, from `source` or a new connection."""
    if source is None:
        from .sql.source import SqlSource

        with SqlSource(config) as source:
            return _source_row(config, row_id, source)
    row = source.row_by_written_id(row_id)
    if row is None:
        raise CliError(f"no row with {config.source.id_column} = {row_id} in {config.source.table!r}")
    return row


def _with_index(config: Config, use: Callable[[Any], Any]) -> Any:
    """Open the incremental index (configured MongoDB, else the embedded one), call
    `use(index)`."""
    from .jobs.incremental import open_incremental

    with open_incremental(config) as index:
        return use(index)


def _check_writable(path: str | None, option: str) -> None:
    """Refuse an output file that cannot be created, before any work is done."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CliError(f"{option} {path}: the folder {folder} does not exist; create it or write elsewhere")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise CliError(f"{option} {path}: no permission to write there; choose another path")


@contextlib.contextmanager
def _writing(path: str, what: str, after: str = "") -> Iterator[None]:
    """A failed write of `path` (a full disk, a folder gone) as one line."""
    try:
        yield
    except OSError as e:
        raise CliError(f"cannot write {what} to {path}: {e.strerror or e}" + (f"; {after}" if after else "")) from None


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
