"""Sketching alone, on one core: `stages.sketch` over chunks of a petition table read by
SqlSource, for the default scheme (shingles) and the paper's (simhash), in rows/s; and,
to hold a change of the sketching code to the same output, its whole output saved and compared.

    python benchmarks/sketch.py [--rows 20000] [--db petitions.sqlite] [--repeat 3]
    python benchmarks/sketch.py --rows 20000 --save before.pickle   # the output, pickled
    python benchmarks/sketch.py --rows 20000 --check before.pickle  # ... equal to it?

The table is benchmarks/scale.py's (scale_data.py: People's Daily text, a fifth
re-submissions), made in a temporary folder unless --db names one; the config is
benchmarks/batch.py's, with `name = "simhash"` for the paper's scheme. Rows are read once,
before the clock starts, in the batch's chunks (`[batch] chunk_size`); each scheme's time
is the fastest of --repeat passes of `sketch` over every chunk (`sketcher` made once, as a
batch worker makes it, and warmed on the first chunk), wall and CPU time alike.

--save / --check take, for each scheme (and for a weighted SimHash: TF-IDF, word lengths,
title, nouns, markers), every chunk's Chunk (ids, content hashes, fingerprints, keys,
stored sketches, the SketchTable) and the probes, of the table's first --rows rows and of
edge rows (NULLs, blanks, numbers, bytes, dates, full-width and odd Unicode, texts longer
than a tokenizer chunk), alone and mixed into a chunk of the table's.

Last line: rows= shingles_s= shingles_cpu_s= shingles_rows_per_s= simhash_s= simhash_cpu_s=
simhash_rows_per_s= (wall and CPU seconds, rows/s of the wall time; with --save: saved=1, with
--check: identical=1 or 0 instead)
"""

from __future__ import annotations

import argparse
import datetime as dt
import pickle
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.batch import CONFIG  # noqa: E402
from benchmarks.scale import write_table  # noqa: E402
from benchmarks.scale_data import PetitionMaker  # noqa: E402
from dedup_pipeline.config import Config, parse_config  # noqa: E402
from dedup_pipeline.jobs.stages import sketch, sketcher  # noqa: E402
from dedup_pipeline.sql.source import SqlSource  # noqa: E402

import tomllib  # noqa: E402

SCHEMES = {
    "shingles": "",
    "simhash": '\nname = "simhash"\n',
    "simhash_weighted": '\nname = "simhash"\n[fingerprint]\nweighting = "tfidf"\nlength = "minmax"\n'
                        'title_weight = 5.0\nnoun_weight = 1.5\nmarker_weight = 2.0\n',
}
TIMED = ("shingles", "simhash")


def config_of(db: Path, scheme: str) -> Config:
    return parse_config(tomllib.loads(CONFIG.format(db=db) + SCHEMES[scheme]), {})


def read(config: Config, rows: int) -> list[list[dict]]:
    """The table's first `rows` rows, in the batch's chunks."""
    chunks, count = [], 0
    with SqlSource(config) as source:
        for chunk in source.rows():
            chunks.append(chunk[:rows - count])
            count += len(chunks[-1])
            if count >= rows:
                break
    return chunks


def timed(config: Config, chunks: list[list[dict]], repeat: int) -> tuple[float, float]:
    """The fastest of `repeat` passes of `sketch` over the chunks: wall and CPU seconds (on
    a shared machine the CPU time varies less)."""
    state = sketcher(config)
    sketch(chunks[0], state)
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for chunk in chunks:
            sketch(chunk, state)
        wall, cpu = min(wall, time.perf_counter() - start), min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def edge_rows() -> list[dict]:
    """Rows that take the unusual paths: blanks, non-text values, odd Unicode, huge texts."""
    long_text = "领导您好！我反映的问题是拖欠工资１２３４５元，请尽快处理。" * 3000  # > 65,536 characters
    contents = [None, "", " ", "\t\n", "！？。，", "a", "好", "好人", "好人好", "１２３", "12345678",
                "ＡＢＣ全角ａｂｃ，混合　空格", "Straße ΣΑΣ ﬁ ＫＡ ﬀ", "e\u0301 combining é", "한국어 텍스트 가각",
                "emoji 😀😀 𠀀𠀁 rare", "\x00nul\x01ctl", long_text,
                long_text[:60_000] + "。" + long_text[:10_000], 12345, 3.25, Decimal("7.50"),
                "2008-6-1 12:30 第3次 ¥500", "再次反映：" + "拖欠工资问题" * 40]
    names = [None, "", "张三", "ＺＨＡＮＧ", b"\xe6\x9d\x8e\xe5\x9b\x9b", 42]
    phones = [None, "", "13800000000", "１３８００００００００", 13800000000, "  "]
    filed = [None, "", "2025-01-02 03:04:05", dt.date(2024, 5, 1), dt.datetime(2024, 5, 1, 8), "2024/05/01",
             "not a date", 20240501]
    return [{"id": 10_000_000 + n, "title": [None, "拖欠工资", "", "关于１２３的投诉"][n % 4],
             "name": names[n % len(names)], "phone": phones[n % len(phones)],
             "address": [None, "城东区工业园路51号", "", "ＡＢＣ路"][n % 4], "category": [None, "拖欠工资", 7][n % 3],
             "created_at": filed[n % len(filed)], "content": content} for n, content in enumerate(contents)]


def output(config: Config, chunks: list[list[dict]]) -> list:
    """Every chunk's Chunk and probes: what must not change."""
    state = sketcher(config)
    edges = edge_rows()
    return [(sketch(chunk, state), state[1].probes(chunk))
            for chunk in [*chunks, edges, chunks[0][:500] + edges + chunks[0][500:1000]]]


def differences(before, after, where: str = "") -> list[str]:
    """Where two outputs differ (values and numpy dtypes), as readable places."""
    if isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        same = (isinstance(before, np.ndarray) and isinstance(after, np.ndarray) and before.dtype == after.dtype
                and before.shape == after.shape and np.array_equal(before, after))
        return [] if same else [where]
    if isinstance(before, (tuple, list)) and isinstance(after, (tuple, list)):
        if type(before) is not type(after) or len(before) != len(after):
            return [where]
        return [d for n, (b, a) in enumerate(zip(before, after)) for d in differences(b, a, f"{where}[{n}]")]
    return [] if type(before) is type(after) and before == after else [where]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--db", type=Path, help="a table as benchmarks/scale.py writes it (default: made anew)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--save", type=Path, help="pickle the output to this file")
    parser.add_argument("--check", type=Path, help="compare the output with this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dedup-sketch-") as folder:
        db = args.db or Path(folder) / "petitions.sqlite"
        if not args.db:
            write_table(db, PetitionMaker(7), args.rows)
        chunks = read(config_of(db, "shingles"), args.rows)
        rows = sum(map(len, chunks))
        if args.save or args.check:
            return compare(db, chunks, rows, args)
        seconds = {}
        for scheme in TIMED:
            seconds[scheme] = wall, cpu = timed(config_of(db, scheme), chunks, args.repeat)
            print(f"{scheme}: {rows:,} rows sketched in {wall:.2f} s ({cpu:.2f} s of CPU), "
                  f"{rows / wall:,.0f} rows/s (one core, best of {args.repeat})", flush=True)
    print(f"rows={rows} " + " ".join(f"{s}_s={seconds[s][0]:.2f} {s}_cpu_s={seconds[s][1]:.2f} "
                                     f"{s}_rows_per_s={rows / seconds[s][0]:.0f}" for s in TIMED))


def compare(db: Path, chunks: list[list[dict]], rows: int, args: argparse.Namespace) -> None:
    """Save the output of every scheme, or compare it with what was saved."""
    found = {scheme: output(config_of(db, scheme), chunks) for scheme in SCHEMES}
    if args.save:
        args.save.write_bytes(pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))
        print(f"saved the output of {rows:,} rows and {len(edge_rows())} edge rows to {args.save}")
        print(f"rows={rows} saved=1")
        return
    saved = pickle.loads(args.check.read_bytes())
    wrong = {scheme: differences(saved[scheme], found[scheme]) for scheme in SCHEMES}
    for scheme, places in wrong.items():
        print(f"{scheme}: " + ("identical" if not places else f"{len(places)} differences, first {places[:5]}"))
    print(f"rows={rows} identical={int(not any(wrong.values()))}")


if __name__ == "__main__":
    main()
