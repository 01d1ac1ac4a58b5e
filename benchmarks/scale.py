"""At scale: `dedup-pipeline batch` over a million-row SQLite petition table of real Chinese
text into the embedded store, as a user runs it (the CLI in a subprocess), then again after
1% of the rows changed; with each phase's time, peak memory, the store's size on disk and the
MongoDB work (round trips, documents written); and the datasketch peer on the first 100,000.

    python benchmarks/scale.py [--rows 1000000] [--seed 7] [--keep DIR] [--skip-peer] [--peer-rows 100000]
    python benchmarks/scale.py --rows 1000000 --generate-only   # time the table alone
    python benchmarks/scale.py --nights 30 --skip-peer   # 30 nightly re-runs, then a clean batch
    python benchmarks/scale.py --table news --nights 2 --skip-peer   # the other table
    python benchmarks/scale.py --nights 2 --skip-peer --matters     # with the matters stage on

Two tables of People's Daily text, a fifth of the rows re-submissions of a recent row (mostly
the same submitter with an edit, some another person's copy); a change is measured on both:
`--table petition` (the default, benchmarks/scale_data.py), runs of 40 to 600 characters, every
piece of text about as common as any other; `--table news` (benchmarks/scale_news.py), 3 to 7
whole sentences, some of them in thousands of rows, about 240,000 pairs a million rows. The
config is benchmarks/batch.py's, default scheme, embedded store (every DEDUP_* variable
unset). The batch runs under a wrapper (benchmarks/counting.py) that counts, with a pymongo
CommandListener, every command sent (hello, ping and the like apart) and the documents each
writes, by collection, and records the peak RSS of the process, which holds the embedded
server, and of its worker processes. Between the runs 0.6% of the rows get a
new content (half an edit of their own, half a new text), 0.2% are deleted and 0.2% added.

The peer: datasketch MinHashLSH, on the first `--peer-rows` rows (threshold 0.5, 128 permutations) over character 2-shingles
of the content normalized as the pipeline does (NFKC, lower case, no punctuation or spaces),
MinHashes made with MinHash.bulk (sha1), inserted as they are (as LeanMinHash they were no
faster), then every row queried; its time runs from the texts read to the last query. It
runs after both batches, on the table as the second one read it: a batch started by this
process after the peer's gigabytes would be counted (its peak RSS, from the fork) that large.

Last line: rows= batch_s= rerun_s= peak_rss_mb= store_mb= docs_per_row= peer_rows= peer_datasketch_s=
(wall seconds of the two batches, the larger peak RSS of the two, the store folder after
the first, documents the first wrote per row, the rows the peer read and its seconds; the
peer's two left out when it is skipped). The table's name is on the first line, `table: news, ...`.

With `--nights N`: the first batch, then N re-runs each after 1% of the rows changed as
above, then a clean batch of the final table into an empty store, whose pairs (`report`)
the last re-run's must equal. With `--matters`, `[matters] find = true` and `migrate` run
first, so that the stage marks every row and writes dedup_matter (issue 52). Last line: rows= first_s= rerun_s= (the slowest re-run)
peak_rss_mb= store_first_mb= store_last_mb= pairs_equal= (the store folder after the first
batch and after the last night).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.batch import CONFIG  # noqa: E402
from benchmarks.counting import counted  # noqa: E402
from benchmarks.scale_data import COLUMNS, PetitionMaker, edit_content  # noqa: E402
from benchmarks.scale_news import NewsMaker  # noqa: E402

PEER_ROWS = 100_000
CHANGED, DELETED, ADDED = 0.006, 0.002, 0.002  # shares of the rows, between the two batches
MAKERS = {"petition": PetitionMaker, "news": NewsMaker}  # --table
Maker = PetitionMaker | NewsMaker

# ------------------------------------------------------------------ the table


def write_table(path: Path, maker: Maker, rows: int) -> None:
    """A new petition table of `rows` rows, a transaction per chunk."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("CREATE TABLE petition (id INTEGER PRIMARY KEY, title TEXT, name TEXT, phone TEXT, "
                   "address TEXT, category TEXT, created_at TEXT, content TEXT)")
        for chunk in maker.rows(rows):
            insert(db, chunk)
            db.commit()
    db.close()


def insert(db: sqlite3.Connection, rows: list[tuple]) -> None:
    db.executemany(f"INSERT INTO petition ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})", rows)


def change_table(path: Path, maker: Maker, rows: int, seed: int) -> dict[str, int]:
    """Rewrite the content of CHANGED of the rows there, delete DELETED, add ADDED (new ids)."""
    rng = random.Random(seed)
    with sqlite3.connect(path) as db:
        ids = [i for (i,) in db.execute("SELECT id FROM petition ORDER BY id")]
        picked = rng.sample(ids, round(rows * CHANGED) + round(rows * DELETED))
        changed, deleted = picked[:round(rows * CHANGED)], picked[round(rows * CHANGED):]
        contents = [(new_content(rng, maker, db, i), i) for i in changed]
        db.executemany("UPDATE petition SET content = ? WHERE id = ?", contents)
        db.executemany("DELETE FROM petition WHERE id = ?", [(i,) for i in deleted])
        added = [row for chunk in maker.rows(round(rows * ADDED)) for row in chunk]
        insert(db, added)
    db.close()
    return {"updated": len(changed), "deleted": len(deleted), "added": len(added)}


def new_content(rng: random.Random, maker: Maker, db: sqlite3.Connection, row_id: int) -> str:
    """Half the time the row's content re-submitted with an edit, else a new text."""
    if rng.random() < 0.5:
        return maker.texts.take(1)[0]
    row = db.execute(f"SELECT {', '.join(COLUMNS)} FROM petition WHERE id = ?", (row_id,)).fetchone()
    r = argparse.Namespace(**dict(zip(COLUMNS, row)))
    edit_content(rng, r, rng.choice(["prefix", "numbers", "punct_width", "sentence_added", "typo"]))
    return r.content


# ------------------------------------------------------------------ the batch


def run_batch(folder: Path) -> dict:
    """`dedup-pipeline batch` in a subprocess under benchmarks/counting.py: wall time, stdout, its counts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    start = time.perf_counter()
    done = subprocess.run(counted(folder / "counts.json", "batch", "--config", "dedup.toml"), cwd=folder,
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"the batch failed (exit {done.returncode}):\n{done.stdout}{done.stderr[-3000:]}")
    counts = json.loads((folder / "counts.json").read_text())
    return {"wall": wall, "stdout": done.stdout, "phases": phases(done.stdout), **counts,
            "peak_kb": max(counts["rss_self_kb"] + counts["rss_server_kb"], counts["rss_children_kb"])}


def phases(summary: str) -> dict[str, float]:
    """The `time: ` line's phases, whatever their names: {"read+fingerprint": 1.23, ...}."""
    line = next((line for line in summary.splitlines() if line.startswith("time: ")), "time: ")
    found = (re.fullmatch(r"\s*(.+?) ([\d.]+) s\s*", part) for part in line[len("time: "):].split(","))
    return {m.group(1): float(m.group(2)) for m in found if m}


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


# ------------------------------------------------------------------ the peer


def peer_datasketch(path: Path, rows: int) -> dict[str, float]:
    """datasketch MinHashLSH over the first `rows` rows: seconds to build, insert, query."""
    from datasketch import MinHash, MinHashLSH

    with sqlite3.connect(path) as db:
        texts = [t or "" for (t,) in db.execute("SELECT content FROM petition ORDER BY id LIMIT ?", (rows,))]
    db.close()
    drop = {c: None for c in range(0x10000) if unicodedata.category(chr(c))[0] in "PZC"}
    start = time.perf_counter()
    normalized = [unicodedata.normalize("NFKC", t).lower().translate(drop) for t in texts]
    shingles = [{t[i:i + 2].encode() for i in range(len(t) - 1)} or {t.encode()} for t in normalized]
    hashes = MinHash.bulk(shingles, num_perm=128)
    built = time.perf_counter()
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    with lsh.insertion_session() as session:
        for key, m in enumerate(hashes):
            session.insert(key, m, check_duplication=False)
    inserted = time.perf_counter()
    pairs = sum(len(lsh.query(m)) - 1 for m in hashes) // 2
    end = time.perf_counter()
    return {"rows": len(texts), "total": end - start, "build": built - start, "insert": inserted - built,
            "query": end - inserted, "pairs": pairs}


# ------------------------------------------------------------------ the report


def report_batch(label: str, run: dict, rows: int, changed: int | None = None) -> None:
    print(f"\n== {label}: {run['wall']:.1f} s wall")
    for line in run["stdout"].splitlines():
        if line.startswith(("rows ", "similar pairs", "groups", "dedup_match")):
            print("  " + line)
    print("  phases: " + ", ".join(f"{name} {s:.2f} s" for name, s in run["phases"].items()))
    print(f"  peak RSS: {run['peak_kb'] / 1024:.0f} MB (the batch's process {run['rss_self_kb'] / 1024:.0f} MB and "
          f"its embedded server's {run['rss_server_kb'] / 1024:.0f} MB together; largest child process "
          f"{run['rss_children_kb'] / 1024:.0f} MB)")
    written = sum(run["written"].values())
    print(f"  MongoDB: {run['round_trips']:,} round trips ({run['round_trips'] / rows:.3f} per row; "
          f"{run['handshakes']:,} hello/ping apart), {written:,} documents written ({written / rows:.2f} per row"
          + (f", {written / changed:.1f} per changed row" if changed else "") + ")")
    print("  commands: " + ", ".join(f"{k} {v:,}" for k, v in sorted(run["commands"].items(), key=lambda x: -x[1])))
    collections = Counter()
    for name, n in run["written"].items():
        collections[name.split("__")[0]] += n  # blocks__<run> and the like: one generation's
    print("  written by collection: " + ", ".join(f"{k} {v:,}" for k, v in collections.most_common()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (created) and keep it")
    parser.add_argument("--skip-peer", action="store_true", help="do not time datasketch")
    parser.add_argument("--peer-rows", type=int, default=PEER_ROWS, help="the rows datasketch reads (the first)")
    parser.add_argument("--generate-only", action="store_true", help="time making the table, then stop")
    parser.add_argument("--nights", type=int, default=0, help="re-runs after 1%% changed each, then a clean batch")
    parser.add_argument("--table", choices=MAKERS, default="petition", help="the table made (the docstring says how)")
    parser.add_argument("--matters", action="store_true", help="with the matters stage on ([matters] find, migrate)")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="dedup-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        bench(args, folder)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


def bench(args: argparse.Namespace, folder: Path) -> None:
    db = folder / "petitions.sqlite"
    db.unlink(missing_ok=True)
    shutil.rmtree(folder / "dedup-data", ignore_errors=True)  # a kept folder's earlier store
    start = time.perf_counter()
    maker = MAKERS[args.table](args.seed)
    write_table(db, maker, args.rows)
    print(f"table: {args.table}, {args.rows:,} rows, {db.stat().st_size / 2**20:.0f} MB, made in "
          f"{time.perf_counter() - start:.1f} s ({folder})", flush=True)
    if args.generate_only:
        return
    configure(folder, db, args.matters)
    if args.nights:
        return nights(args, folder, maker)
    first = run_batch(folder)
    store = folder_bytes(folder / "dedup-data" / "mongo")
    report_batch("batch", first, args.rows)
    print(f"  store: {store / 2**20:.0f} MB on disk ({store / args.rows:.0f} bytes per row)", flush=True)
    changes = change_table(db, maker, args.rows, args.seed + 1)
    rerun = run_batch(folder)
    changed = sum(changes.values())
    report_batch(f"batch again after {changes['updated']:,} rows updated, {changes['deleted']:,} deleted, "
                 f"{changes['added']:,} added", rerun, args.rows - changes["deleted"] + changes["added"], changed)
    # The peer last: a batch forked from this process after it would be counted (ru_maxrss)
    # as large as this process was at the fork.
    peer = None if args.skip_peer else peer_datasketch(db, args.peer_rows)
    if peer:
        print(f"\n== datasketch MinHashLSH over the first {peer['rows']:,} rows: {peer['total']:.1f} s "
              f"(MinHashes {peer['build']:.1f} s, insert {peer['insert']:.1f} s, query {peer['query']:.1f} s), "
              f"{peer['pairs']:,} candidate pairs")
    peak = max(first["peak_kb"], rerun["peak_kb"]) / 1024
    print(f"rows={args.rows} batch_s={first['wall']:.1f} rerun_s={rerun['wall']:.1f} peak_rss_mb={peak:.0f} "
          f"store_mb={store / 2**20:.0f} docs_per_row={sum(first['written'].values()) / args.rows:.2f}"
          + (f" peer_rows={peer['rows']} peer_datasketch_s={peer['total']:.1f}" if peer else ""))


def nights(args: argparse.Namespace, folder: Path, maker: Maker) -> None:
    """The first batch, `args.nights` re-runs after 1% changed each, then a clean batch."""
    db, rows = folder / "petitions.sqlite", args.rows
    first = run_batch(folder)
    report_batch("batch", first, rows)
    store_first = folder_bytes(folder / "dedup-data" / "mongo")
    print(f"  store: {store_first / 2**20:.0f} MB on disk", flush=True)
    runs = [first]
    for night in range(1, args.nights + 1):
        changes = change_table(db, maker, rows, args.seed + night)
        rows += changes["added"] - changes["deleted"]
        runs.append(run_batch(folder))
        store_last = folder_bytes(folder / "dedup-data" / "mongo")
        written = sum(runs[-1]["written"].values())
        print(f"night {night}: {runs[-1]['wall']:.1f} s, {written:,} documents written, peak RSS "
              f"{runs[-1]['peak_kb'] / 1024:.0f} MB, store {store_last / 2**20:.0f} MB", flush=True)
        said = [line for line in runs[-1]["stdout"].splitlines() if line.startswith("rows read")]
        print("  " + "; ".join(said + ["phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in runs[-1]["phases"].items())]),
              flush=True)
    clean = folder / "clean"
    shutil.rmtree(clean, ignore_errors=True)
    clean.mkdir()
    configure(clean, db, args.matters)
    clean_run = run_batch(clean)
    report_batch("a clean batch of the final table into an empty store", clean_run, rows)
    equal = exported_pairs(folder) == exported_pairs(clean)
    peak = max(run["peak_kb"] for run in runs) / 1024
    print(f"rows={rows} first_s={first['wall']:.1f} rerun_s={max(run['wall'] for run in runs[1:]):.1f} "
          f"peak_rss_mb={peak:.0f} store_first_mb={store_first / 2**20:.0f} store_last_mb={store_last / 2**20:.0f} "
          f"pairs_equal={str(equal).lower()}")


def configure(folder: Path, db: Path, matters: bool) -> None:
    """benchmarks/batch.py's configuration over the table, in the folder; with `matters`, the
    stage on and the table's database migrated for it (dedup_matter), as its user does."""
    (folder / "dedup.toml").write_text(CONFIG.format(db=db) + ("\n[matters]\nfind = true\n" if matters else ""),
                                       encoding="utf-8")
    if matters:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
        subprocess.run([sys.executable, "-m", "dedup_pipeline", "migrate", "--config", "dedup.toml"], cwd=folder,
                       env=env, check=True, capture_output=True)


def exported_pairs(folder: Path) -> set[tuple]:
    """The live batch's pairs, as `dedup-pipeline report` exports them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    out = folder / "pairs.jsonl"
    subprocess.run([sys.executable, "-m", "dedup_pipeline", "report", "--config", "dedup.toml", "--out", str(out)],
                   cwd=folder, env=env, check=True, capture_output=True)
    with out.open(encoding="utf-8") as lines:
        return {tuple(sorted(map(str, list(json.loads(line).values())[:2]))) for line in lines}


if __name__ == "__main__":
    main()
