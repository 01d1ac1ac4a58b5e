"""The commands as a library: one function per command of `dedup-pipeline` (cli.py), each
taking the validated Config and the command's options, doing the whole command and
returning what it did, for the command line to print or for any program to use.

What a user can fix is raised as a DedupError. A command failing after part of its work
(the batch stored, then its fingerprints file not written) lets the error through with
that part's result as the error's `done`, so that a caller can report it first. Each
function imports what it uses when called: `fingerprint` does not wait for the drivers."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import datetime as dt
import functools
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Iterable, Iterator, NamedTuple, Sequence

from .calls import check_writable as _check_writable, source_row as _source_row, writing as _writing
from .errors import DedupError, InputError, UsageError
from .pipeline import Using, config_of, holding
from .review import (  # noqa: F401  (commands.X, as before: the review's own module)
    Found, decide, decide_group, undo, history, group_history, decisions_export, decisions_import, queue,
    audit, live_pairs, found, search, precision, reviewer_add, reviewer_disable, access_log,
    access_log_export, reviewer_list, reviewer_remove)

if TYPE_CHECKING:
    from .config import Config
    from .jobs.batch import BatchResult
    from .jobs.incremental import Checked, Match
    from .sql.queue import Item
    from .sql.binlog import Lag
    from .sql.health import Backlog
    from .store.health import StoreHealth
    from .jobs.spark import SparkResult
    from .sql.source import SqlSource

Progress = Callable[[int], ContextManager[Callable[[int], None]]]  # rows to read -> a context giving advance(n)


def _quiet(total: int) -> ContextManager[Callable[[int], None]]:
    """No progress shown."""
    return contextlib.nullcontext(lambda n: None)


@dataclass
class Batch:
    """What `batch` did: the engine's result (jobs.batch.BatchResult or jobs.spark.SparkResult),
    and the CSV file of every row's fingerprint it wrote, if any."""

    result: BatchResult | SparkResult
    fingerprints: str | None = None


def batch(using: Using, *, engine: str = "local", out: str | None = None, processes: int | None = None,
          algorithm: str = "blocks", master: str | None = None, partitions: int | None = None,
          full: bool = False, progress: Progress = _quiet) -> Batch:
    """集中处理 on `engine` (local, spark): every row's pairs and groups stored, and with `out`
    each row's id and hex fingerprint written as CSV. `progress` is called with the rows to
    read, and what it returns entered once the store is open."""
    from .jobs.batch import check_algorithm

    config = config_of(using)
    check_algorithm(config, algorithm)
    if engine == "spark" and out:
        raise UsageError("--out (fingerprints) is for --engine local")
    _check_writable(out, "--out")
    run = _engine(engine, processes=processes, algorithm=algorithm, master=master, partitions=partitions, full=full)
    with holding(using) as pipe:
        reading = progress(pipe.source.count())
        baseline = _binlog_baseline(config)  # before the table is read: no change falls between
        store = pipe.store
        with reading as advance:
            result = run(config, store, advance)
        if baseline is not None:
            from .sql.binlog import set_baseline

            set_baseline(config, baseline)
    if out:
        with _carrying(Batch(result)), _writing(out, "the fingerprints", "the batch's results are stored all the same"):
            _write_fingerprints(out, config.source.id_column, result)
    return Batch(result, out)


def _binlog_baseline(config: Config) -> Any:
    """Where the binary log is before the batch reads the table, for `watch --from binlog`
    to start from when the batch is done, if the binlog path is set up and its stored
    position cannot be followed (sql/binlog.baseline); else None."""
    from .sql.source import parse_url

    if parse_url(config.source.url).get_backend_name() not in ("mysql", "mariadb"):
        return None
    from .sql.binlog import baseline

    return baseline(config)


def _engine(engine: str, *, processes: int | None, algorithm: str, master: str | None,
            partitions: int | None, full: bool = False) -> Callable[..., BatchResult | SparkResult]:
    """The batch of `engine` with its options: (config, store, advance) -> its result."""
    if engine == "spark":
        from .jobs.spark import run_spark_batch

        return functools.partial(run_spark_batch, master=master, partitions=partitions)
    if engine == "local":
        from .jobs.batch import run_batch

        return functools.partial(run_batch, processes=processes, algorithm=algorithm, full=full)
    raise UsageError(f"engine {engine!r} is unknown; available: local, spark")


def _write_fingerprints(path: str, id_column: str, result: BatchResult) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([id_column, "fingerprint"])
        writer.writerows((i, f"{int(fp):016x}") for i, fp in zip(result.ids, result.fingerprints))


@dataclass
class Report:
    """What `report` wrote: `lines` (pairs, or rows of `groups`) to `out`, the HTML report to `html`."""

    out: str | None = None
    lines: int = 0
    groups: bool = False
    html: str | None = None
    possible: bool = False
    matters: bool = False


def report(using: Using, *, out: str | None = None, fmt: str = "jsonl", groups: bool = False,
           html: str | None = None, lang: str = "zh", possible: bool = False, matters: bool = False) -> Report:
    """Export the last batch's pairs (or `groups`, or the queue's `possible` items, or the
    `matters`) to `out` as `fmt` (jsonl, csv), and/or write the admin HTML report in `lang`
    (zh, en) to `html`."""
    from .report.exports import export, export_matters, write_html_report

    if not out and not html:
        raise UsageError("give --out FILE (pairs or groups) and/or --html FILE")
    _check_writable(out, "--out")
    _check_writable(html, "--html")
    done = Report(groups=groups)
    with holding(using) as pipe:
        if out and matters:
            with _writing(out, "the export"):
                done = Report(out, export_matters(pipe, out, fmt), matters=True)
        elif out:
            with _writing(out, "the export"):
                done = Report(out, export(pipe, out, fmt, groups, possible), groups, possible=possible)
        if html:
            with _carrying(done), _writing(html, "the report"):
                write_html_report(pipe, html, lang)
            done = dataclasses.replace(done, html=html)
    return done


class Filed(NamedTuple):
    """What the scheme files one row under (core.explain.filed's entry), and the row's label."""

    label: Any  # a CSV row's id (else its number); None for a text
    entry: dict[str, Any]


def fingerprint(config: Config, *, text: str | None = None, csv_path: str | None = None,
                field_name: str | None = None, explain: bool = False) -> Iterator[Filed]:
    """What the configured scheme files a `text` (as `field_name`, by default the first long
    field) or each row of the CSV file `csv_path` under, row by row as it is read; `explain`
    adds the features and weights, or the text a sketch compares."""
    from .core.explain import filed

    rows = _csv_rows(config, csv_path) if csv_path else iter([(None, _text_row(config, text, field_name))])
    return (Filed(label, filed(config, [row], explain)[0]) for label, row in rows)


def _text_row(config: Config, text: str | None, field_name: str | None) -> dict[str, Any]:
    longs = [f.name for f in config.fields if f.role == "long"]
    name = field_name or (longs[0] if longs else None)
    if name is None or name not in {f.name for f in config.fields}:
        raise UsageError(f"--field {name!r} is not a configured field; fields: "
                         f"{', '.join(f.name for f in config.fields)}")
    return {name: text}


def _csv_rows(config: Config, path: str) -> Iterator[tuple[Any, dict]]:
    """(label, row) of each row of a CSV file, fields of any length; a line the csv module
    cannot read is named by file and line."""
    reader = csv.DictReader(_utf8_lines(path))
    known = {fl.name for fl in config.fields}
    limit = csv.field_size_limit(CSV_FIELD_LIMIT)  # Python's default (131,072 characters) refuses a long text
    try:
        if not known & set(reader.fieldnames or ()):
            raise UsageError(f"{path}: its header ({', '.join(reader.fieldnames or ())}) names "
                             f"none of the configured fields ({', '.join(sorted(known))})")
        for number, row in enumerate(reader, 1):
            yield row.get(config.source.id_column, number), {k: v or None for k, v in row.items()}
    except csv.Error as e:
        raise InputError(f"{path}, line {reader.reader.line_num:,}: not valid CSV ({str(e).split(' - ')[0]}); quote "
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
                raise InputError(f"{path}, line {number} (byte {offset + e.start + 1:,} of the file): not UTF-8 "
                                 f"({e.reason}); save the file as UTF-8 (in Excel: \"CSV UTF-8\")") from None
            offset += len(line)


@dataclass
class Configuration:
    """What `config` shows: the effective settings (passwords masked, the file they came from
    as `config_file`), and with `check` the rows of the table, and with `[watch] changes =
    "binlog"` the binary log's position now (the server logs what the worker needs)."""

    settings: dict[str, Any]
    rows: int | None = None
    binlog: str | None = None


def configuration(config: Config, *, check: bool = False) -> Configuration:
    """The effective configuration; with `check`, the configured table is read (its id
    column and every field; a view's ids unique in its rows now) and its rows counted, and for
    `watch --from binlog` the server's settings and the account's grants checked (a
    BinlogError says in one line what is missing)."""
    shown = Configuration({"config_file": config.path, **config.masked()})
    if not check:
        return shown
    from .sql.source import SqlSource

    with _carrying(shown), SqlSource(config) as source:
        source.check_ids()
        shown = dataclasses.replace(shown, rows=source.count())
    if config.watch.changes == "binlog":
        from .jobs.binlog import check

        with _carrying(shown):
            shown = dataclasses.replace(shown, binlog=str(check(config)))
    return shown


@dataclass
class Status:
    """What `status` found, for monitoring: the store and its live batch (store.health), the
    changes `watch` has not processed (`backlog` of the outbox, or the binary log's `lag`, as
    `[watch] changes` says), the review queue's open items and the decisions made today (None
    where not read); `unread`: {part: why it could not be read}; `problems`: {part: what is
    wrong}, by the thresholds of `[status]`; `warnings`: {part: what needs a look though the
    pipeline runs} (rows the live batch left out). Parts: store, batch, changes, queue, decisions."""

    checked_at: dt.datetime  # UTC
    changes: str  # [watch] changes: "triggers" or "binlog"
    batch_max_age_hours: float
    change_max_age_minutes: float
    store: StoreHealth | None = None
    backlog: Backlog | None = None
    lag: Lag | None = None
    queue: list[Item] | None = None
    decided_today: int | None = None
    unread: dict[str, str] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    warnings: dict[str, str] = field(default_factory=dict)

    @property
    def healthy(self) -> bool:
        return not self.problems

    @property
    def batch_age_hours(self) -> float | None:
        live = self.store.live if self.store else None
        if live is None or live.live_since is None:
            return None
        return max(0.0, (self.checked_at - live.live_since.replace(tzinfo=dt.timezone.utc)).total_seconds() / 3600)

    def figures(self) -> dict[str, Any]:
        """Every figure as plain data (JSON): `healthy`, `problems` ("part: what is wrong"), then
        each part's figures, with `ok` where a threshold applies and `error` where unread."""
        store, live = self.store, self.store.live if self.store else None
        iso = lambda moment: None if moment is None else moment.replace(tzinfo=dt.timezone.utc).isoformat()
        return {
            "healthy": self.healthy,
            "problems": [f"{part}: {problem}" for part, problem in self.problems.items()],
            "warnings": [f"{part}: {warning}" for part, warning in self.warnings.items()],
            "checked_at": self.checked_at.isoformat(),
            "batch": {"run": live and live.run, "live_since": live and iso(live.live_since),
                      "age_hours": _rounded(self.batch_age_hours), "rows": live and live.rows,
                      "pairs": live and live.pairs, "groups": live and live.groups,
                      "seconds": live and _rounded(live.seconds), "left_out": live and live.left_out,
                      "left_out_first": live and [list(row) for row in live.left_out_first],
                      "building_since": store and iso(store.building_since),
                      "max_age_hours": self.batch_max_age_hours, "ok": self._ok("batch"),
                      "error": self.unread.get("batch")},
            "store": {"kind": store and store.kind, "where": store and store.where, "format": store and store.format,
                      "supported_format": store and store.supported, "bytes": store and store.size,
                      "measured": store and store.measured, "ok": self._ok("store"),
                      "error": self.unread.get("store")},
            "changes": {"from": self.changes, **(self._lag() if self.changes == "binlog" else self._backlog()),
                        "max_age_minutes": self.change_max_age_minutes, "ok": self._ok("changes"),
                        "error": self.unread.get("changes")},
            "queue": {"open": None if self.queue is None else len(self.queue),
                      "pairs": None if self.queue is None else sum(1 for i in self.queue if i.kind == "pair"),
                      "groups": None if self.queue is None else sum(1 for i in self.queue if i.kind == "group"),
                      "error": self.unread.get("queue")},
            "decisions": {"today": self.decided_today, "error": self.unread.get("decisions")},
        }

    def _ok(self, part: str) -> bool | None:
        """False: a problem; None: not read, so not judged; True: judged and well."""
        return False if part in self.problems else None if part in self.unread else True

    def _backlog(self) -> dict[str, Any]:
        b = self.backlog
        return {"pending": b and b.pending, "failed": b and b.failed,
                "oldest": b and b.oldest and b.oldest.isoformat(), "age_minutes": b and _rounded(_minutes(b.age))}

    def _lag(self) -> dict[str, Any]:
        lag = self.lag
        held = lag and lag.stored
        return {"position": held and str(held.position), "stored_age_minutes": lag and _rounded(_minutes(lag.age)),
                "log_end": lag and lag.end and str(lag.end), "behind_bytes": lag and lag.behind,
                "stopped": held and held.stopped, "unreadable": lag and lag.unreadable}


def _minutes(seconds: float | None) -> float | None:
    return None if seconds is None else seconds / 60


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def status(config: Config) -> Status:
    """Whether the pipeline runs, for cron or a monitoring system: the store and its live
    batch (older than `[status] batch_max_age_hours`, or none: unhealthy), the changes not
    processed (the oldest waiting longer than `[status] change_max_age_minutes`, or nothing
    to follow them by: unhealthy), the queue's open items and today's decisions. A part that
    cannot be read is said so in `unread`, never raised; unhealthy where it means the
    pipeline does not run."""
    from .store.health import health

    found = Status(dt.datetime.now(dt.timezone.utc), config.watch.changes, config.status.batch_max_age_hours,
                   config.status.change_max_age_minutes)
    try:
        found.store = health(config)
    except DedupError as e:
        found.unread["store"] = found.problems["store"] = str(e)
        found.unread["batch"] = "the store cannot be read"
    _judge_batch(found)
    _read_source(config, found)
    return found


def _judge_batch(found: Status) -> None:
    """A problem: no batch live, or one too old. A warning, not a problem: rows the live batch
    left out (their values cannot be read as text): the pipeline runs, every other row has
    its pairs, and only a correction of the rows in the table (or of [fields] encoding)
    brings them in; unhealthy would page the operator each night until the table's owner
    acts. A monitor that wants to alert on them reads `batch.left_out` of `--json`."""
    if found.store is None:
        return
    live = found.store.live
    if live is not None and live.left_out:
        found.warnings["batch"] = left_out_said(live.left_out, live.left_out_first)
    age = found.batch_age_hours
    if found.store.live is None:
        found.problems["batch"] = "no batch has gone live yet: run `dedup-pipeline batch`"
    elif age is not None and age > found.batch_max_age_hours:
        found.problems["batch"] = (f"the live batch went live {age:,.1f} h ago, more than [status] batch_max_age_hours "
                                   f"= {found.batch_max_age_hours:g}: has the scheduled `dedup-pipeline batch` "
                                   f"stopped running?")


def left_out_said(count: int, first: Iterable[Sequence]) -> str:
    """The rows a batch left out, in a line: how many, the first of them as (row, column, why)."""
    first = list(first)
    them = "it" if count == 1 else "them"
    named = "; ".join(f"row {row!r}, column {column}: {why}" for row, column, why in first)
    more = f"; and {count - len(first):,} more" if count > len(first) else ""
    return (f"{count:,} row{'' if count == 1 else 's'} left out, a value not readable as text ({named}{more}); "
            f"correct {them} in the table (or [fields] encoding) and the next batch reads {them}")


def _read_source(config: Config, found: Status) -> None:
    """The source database's parts: each read on its own, what fails said in its part."""
    from .sql import health
    from .sql.source import SqlSource, parse_url

    try:
        source = SqlSource(config)
    except DedupError as e:
        for part in ("changes", "queue", "decisions"):
            found.unread[part] = str(e)
        found.problems["changes"] = f"the source database cannot be read: {e}"
        return
    with source:
        if config.watch.changes == "binlog":
            if parse_url(config.source.url).get_backend_name() not in ("mysql", "mariadb"):
                found.unread["changes"] = found.problems["changes"] = (
                    f"[watch] changes = \"binlog\" follows the binary log of MySQL or MariaDB, not of "
                    f"{parse_url(config.source.url).get_backend_name()}: use \"triggers\"")
            else:
                _read(found, "changes", lambda: _judge_lag(config, found, health.binlog_lag(source)))
        else:
            _read(found, "changes", lambda: _judge_backlog(config, found, health.outbox(source)))
        found.queue = _read(found, "queue", lambda: health.open_queue(source))
        if found.queue is None and "queue" not in found.unread:
            found.unread["queue"] = "no dedup_possible table: `dedup-pipeline migrate` makes it"
        found.decided_today = _read(found, "decisions", lambda: health.decided_today(source))
        if found.decided_today is None and "decisions" not in found.unread:
            found.unread["decisions"] = "no dedup_decision table: `dedup-pipeline migrate` makes it"


def _read(found: Status, part: str, read: Callable[[], Any]) -> Any:
    """What `read` returns, or None with why in `found.unread[part]` (and, for the changes, in
    its problems: then nothing says that `watch` keeps up)."""
    try:
        return read()
    except DedupError as e:
        found.unread[part] = str(e)
        if part == "changes":
            found.problems[part] = str(e)
        return None


def _judge_backlog(config: Config, found: Status, backlog: Backlog | None) -> None:
    found.backlog = backlog
    limit = found.change_max_age_minutes
    if backlog is None:
        from .config import mask_url

        found.unread["changes"] = found.problems["changes"] = (
            f"no dedup_outbox in {mask_url(config.source.url)}: run `dedup-pipeline migrate` (or, following the "
            f"binary log, set [watch] changes = \"binlog\")")
    elif backlog.age is not None and backlog.age > limit * 60:
        failed = f" ({backlog.failed:,} of them failed: see last_error in dedup_outbox)" if backlog.failed else ""
        found.problems["changes"] = (f"the oldest of {backlog.pending:,} change(s) not processed has waited "
                                     f"{backlog.age / 60:,.1f} min, more than [status] change_max_age_minutes = "
                                     f"{limit:g}{failed}: is `dedup-pipeline watch` running?")


def _judge_lag(config: Config, found: Status, lag: Lag | None) -> None:
    found.lag = lag
    limit, again = found.change_max_age_minutes, "run `dedup-pipeline batch` to set a new position"
    if lag is None:
        from .config import mask_url

        problem = (f"no dedup_binlog_position in {mask_url(config.source.url)}: run `dedup-pipeline migrate "
                   f"--from binlog`")
        found.unread["changes"] = problem
    elif lag.stored is None:
        problem = (f"no binary log position is stored for {config.source.table!r}: run `dedup-pipeline batch` "
                   f"(it stores where the log is, for `watch --from binlog`)")
    elif lag.end is None:
        problem = "binary logging is off on the server: `watch --from binlog` has nothing to follow"
    elif lag.stored.stopped:
        problem = f"`watch --from binlog` stopped at {lag.stored.position}: {lag.stored.stopped}; {again}"
    elif lag.unreadable:
        problem = f"the stored position {lag.stored.position} cannot be read: {lag.unreadable}; {again}"
    elif lag.behind and lag.age is not None and lag.age > limit * 60:
        problem = (f"the binary log has moved {lag.behind:,} bytes past the position stored {lag.age / 60:,.1f} min "
                   f"ago, more than [status] change_max_age_minutes = {limit:g}: is `dedup-pipeline watch --from "
                   f"binlog` running?")
    else:
        return
    found.problems["changes"] = problem


@dataclass
class Migration:
    """What `migrate` did: the SQL for a DBA (`sql`, nothing applied), else applied the
    upgrade or the `down`grade (`kept`: only the configured table's part, the rest being
    the other tables' named there), and ensured MongoDB's indexes at `indexes`."""

    down: bool = False
    sql: str | None = None
    indexes: str | None = None
    kept: tuple[str, ...] = ()


def migrate(config: Config, *, sql: bool = False, down: bool = False) -> Migration:
    """Create dedup_match and what `watch` follows changes by (`[watch] changes`:
    dedup_outbox and its triggers on the configured table, or the binlog position tables),
    and MongoDB's indexes; `down`: remove them all. With `sql`, only the SQL, for a DBA
    (for the binlog, with the server settings and grants it needs)."""
    from .sql import migrate as migrations

    if sql:
        if down:
            return Migration(down, sql=migrations.downgrade_sql(config))
        if config.watch.changes == "binlog":
            from .sql.binlog import setup_sql

            return Migration(sql=setup_sql(config) + migrations.upgrade_sql(config))
        return Migration(sql=migrations.upgrade_sql(config))
    if down:
        return Migration(down, kept=tuple(sorted(migrations.downgrade(config))))
    migrations.upgrade(config)
    with _carrying(Migration()):
        return Migration(indexes=migrations.ensure_store_indexes(config))


@dataclass
class Explanation:
    """Why two rows are (not) similar: their ids as the table has them, and the reasons
    core.explain.explain_pair gives."""

    ids: tuple[Any, Any]
    reasons: dict[str, Any]


def explain(using: Using, first: Any, second: Any) -> Explanation:
    """Why the rows `first` and `second` of the configured table are (or are not) similar:
    the decision over them and the stored rows around them."""
    from .core.explain import explain_pair
    from .jobs import matters
    from .sql import decisions
    from .sql.matters import matter_of

    with holding(using) as pipe:
        config, source = pipe.config, pipe.source
        a, b = (_source_row(source, row_id) for row_id in (first, second))
        ids = (a[config.source.id_column], b[config.source.id_column])
        index = pipe.incremental()
        around = index.decide({row_id: index.probe(row) for row_id, row in zip(ids, (a, b))}).seen
        decided = decisions.history(source, *ids)[-1:] if decisions.exists(source) else []
        decided = [d for d in decided if not d.withdrawn]  # undone: the pair has no decision
    reasons = explain_pair(config, a, b, around, decided[0] if decided else None)
    if config.matters.find:
        reasons["matter"] = {**matters.why(config, a, b),
                             "matters": [getattr(matter_of(source, i), "matter", None) for i in ids]}
    return Explanation(ids, reasons)


def check(using: Using, *, row_id: Any = None, text: str | None = None, mode: str = "all") -> Checked:
    """The stored rows similar to the row `row_id` of the configured table (never itself),
    else to a `text`: every one nearest first (mode all), or the nearest (exists); and those
    the rule cannot settle (`possible`, for a person); and the matter of a row (`row_id`)."""
    from .sql.matters import matter_of

    with holding(using) as pipe:
        if row_id is None:
            return pipe.incremental().checked(text, mode)
        row = _source_row(pipe.source, row_id)
        row_id = row[pipe.config.source.id_column]
        checked = pipe.incremental().checked(row, mode, exclude=row_id)
        return checked._replace(matter=matter_of(pipe.source, row_id))


@dataclass
class Added:
    """What `add` did: each row added by id with the stored rows similar to it, or, adding
    every row, how many were new or changed (`written`)."""

    similar: dict[Any, list[Match]] = field(default_factory=dict)
    written: int | None = None


def add(using: Using, row_ids: Iterable[Any] | None = None) -> Added:
    """File the rows `row_ids` of the configured table in the stored index, checking each,
    or (None) every row; a changed row leaves its old blocks. Their matters follow."""
    from .jobs import matters

    with holding(using) as pipe:
        config, source, id_column = pipe.config, pipe.source, pipe.config.source.id_column
        rows = None if row_ids is None else [_source_row(source, i) for i in row_ids]
        index = pipe.incremental()
        if rows is None:
            written = index.add_many((row[id_column], row) for chunk in source.rows() for row in chunk)
            matters.find(config, source)
            return Added(written=written)
        added = Added({row[id_column]: index.add_and_check(row[id_column], row) for row in rows})
        with source.errors("write the matters of"), source.engine.begin() as conn:
            matters.follow(conn, matters.tables_of(config, conn), config, {row[id_column]: row for row in rows}, [])
        return added


@contextlib.contextmanager
def _carrying(done: Any) -> Iterator[None]:
    """An error from here on carries `done`, the result of the work before it."""
    try:
        yield
    except BaseException as e:
        e.done = done  # type: ignore[attr-defined]
        raise


def serve(config: Config, *, host: str = "127.0.0.1", port: int = 8765, behind_proxy: bool = False,
          ready: Callable[[str], None] | None = None, warn: Callable[[str], None] = lambda said: None) -> None:
    """Serve the review console on host:port until interrupted; `behind_proxy`: reached
    through an HTTPS reverse proxy (Secure cookies, the client's address from X-Forwarded-For).
    Refuses to start without the decisions' tables (`migrate`); `warn` is told when nobody
    can sign in yet."""
    from .console.app import Settings, serve as run
    from .console.desk import Desk
    from .sql import reviewers

    desk = Desk(config)  # holds the source and the store for the console's life
    try:
        if not reviewers.every(desk.pipe.source):  # the tables are there (else a SourceError saying to migrate)
            warn("no reviewer can sign in yet: add one with `dedup-pipeline reviewer add NAME` "
                 "(the console need not stop)")
        run(desk, host, port, Settings(secure=behind_proxy), behind_proxy=behind_proxy, ready=ready)
    finally:
        desk.close()



def store_serve(config: Config, ready: Callable[[str], None] | None = None) -> None:
    """Run the embedded store's server of `[store] data_dir` in this process until SIGTERM or
    Ctrl-C, for every other command to find (its service of its own, `dedup-store.service`)."""
    from .errors import StoreError
    from .store import shared

    folder = _embedded_folder(config)
    try:
        shared.serve(folder, announce=ready or (lambda uri: None))
    except shared.EmbeddedMongoError as e:
        raise StoreError(f"cannot serve the embedded store: {e}") from None


def store_stop(config: Config) -> bool:
    """Stop the embedded store's server of `[store] data_dir`, if one runs (whether it did);
    `watch` and `serve` start it again as they need it."""
    from .store import shared

    return shared.stop(_embedded_folder(config))


def _embedded_folder(config: Config) -> str:
    """The embedded store's folder; a UsageError when the configuration names a MongoDB server."""
    from .config import mask_url

    if config.store.mongo_uri:
        raise UsageError(f"the store is the MongoDB server at {mask_url(config.store.mongo_uri)}, "
                         f"not the embedded one: nothing to serve or stop here")
    return os.path.join(config.store.data_dir, "mongo")


# ---------------------------------------------------------------- one server's service files (deploy.py)

def deploy_systemd(config: Config, out: str, *, workdir: str | None = None, **options: Any) -> Any:
    """Write the systemd units of one server (the embedded store's server when it is used,
    watch, serve, the nightly batch and its timer), env.example and README.txt to `out`, for
    this installation's program, running in `workdir` (default: here); `options` are
    deploy.settings' (user, group, env_file, port). Returns deploy.Written."""
    from . import deploy

    return deploy.write_systemd(config, deploy.settings(workdir, **options), out)
