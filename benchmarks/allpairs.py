"""All pairs within k bits (issue 9, item 9): ours against seomoz's C++ `find_all` and the
pure-Python `simhash.SimhashIndex`, on the same random 64-bit fingerprints.

    python benchmarks/allpairs.py [--sizes 1000000,10000000] [--quick]

Each size gets its own seeded fingerprints with planted near-duplicates: pairs at every
distance 0..k and at k+1 (which must not be reported), and fingerprints shared by 3-5 rows.
Every method runs in a fresh subprocess that loads the fingerprints from a temporary .npy
file, so its time (loading excluded) and its peak RSS (`ru_maxrss` of that subprocess,
started from a small launcher process: see `Launcher`) are its own:

- ours, `similar_pairs` with the fast scheme (5 blocks, keys of 2: 10 tables) and with the
  paper's 4 x 16 (4 tables; at sizes >= 10M within `--paper-timeout` seconds or reported as
  not finished), and once with one thread at the largest size (the C++ peer is one thread);
- seomoz's C++ simhash `find_all` (PyPI `simhash-pybind`, module `simhash`) in its own venv
  (benchmarks/.venvs/cpp, made on first run) with 4, 5 and 6 blocks at every size, its
  fastest at each size being the one compared (`--cpp-sweep first` picks the block count at
  the smallest size and uses it at the others; 4 and 5 blocks are within a few % at 1M but 3x
  apart at 10M). Its time is its public API, `find_all(hashes, blocks, k)` on Python ints:
  the set() it builds from them included, the list excluded;
- the pure-Python `simhash` (1e0ng) `SimhashIndex` in another venv (benchmarks/.venvs/py)
  at `--py-size` rows, index build plus one `get_near_dups` per row; ours at the same size.

What is checked, at each size (printed with its outcome):
- planted: every planted pair within k is reported with its distance, none at k+1;
- valid: every reported pair has i < j, is reported once, with its true distance, <= k;
- sample: for `--sample` rows (half from planted pairs) every pair they are in, by brute
  force against all rows, equals what we report for them;
- exact (sizes <= `--exact-max`, 10M by default): an independent method (two 32-bit
  halves; a pair within k differs in <= k//2 bits of one half, so binary-search every half,
  and every change of up to k//2 of its bits, in the sorted halves, then check all 64 bits)
  gives the same set of distinct-fingerprint pairs, and the same row-pair count once
  expanded by how many rows share each fingerprint;
- peer: the C++ peer's pairs (it takes a set, so distinct fingerprints only) equal ours
  mapped to distinct fingerprints; the pure-Python peer's row pairs equal ours exactly;
- the fast scheme and the 4 x 16 give the same pairs.

Ours is timed up to its result as the batch takes it (`pairs.Similar`: rows of one
fingerprint as copies of the first, not as pairs), the peer up to its set of pairs of
distinct fingerprints; every row pair is expanded after the timing, for the checks.

Last line: allpairs_10M_s=<t> peak_rss_mb=<m> all_found=<1|0> peer_cpp_10M_s=<t> cpp_ratio=<x>
(ours with the fast scheme at the largest size; all_found: every planted pair within k
found and none at k+1, by every run of ours; cpp_ratio: the C++ peer's fastest block count
there, its seconds over ours, the goal at least 2; the peer's two only when it ran).
The exit status is 1 if any check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
VENVS = Path(__file__).resolve().parent / ".venvs"
SCHEMES = {"fast": (5, 2), "paper": (4, 1)}  # name -> (blocks, key_blocks)
CPP_BLOCKS = (4, 5, 6)
PEERS = {  # venv name -> (packages, probe that must print the peer's version)
    "cpp": (["simhash-pybind", "numpy"],
            "import simhash, importlib.metadata as m; simhash.c_find_all; "
            "print('simhash-pybind', m.version('simhash-pybind'))"),
    "py": (["simhash", "numpy"],
           "import simhash, importlib.metadata as m; simhash.SimhashIndex; "
           "print('simhash', m.version('simhash'))"),
}


# ---------------------------------------------------------------- workers (subprocesses)
# They import only numpy at module level: the peers' venvs have no dedup_pipeline.

def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _own_peak_mb() -> float:
    """VmHWM: the peak RSS of this process's own address space (Linux), to cross-check."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


def worker_ours(args) -> dict:
    sys.path.insert(0, str(ROOT))
    from dedup_pipeline.core.blocks import BlockScheme
    from dedup_pipeline.core.pairs import similar_pairs

    fingerprints = np.load(args.input)
    blocks, key_blocks = SCHEMES[args.scheme]
    scheme = BlockScheme(bits=64, k=args.k, blocks=blocks, key_blocks=key_blocks)
    loaded_mb = _peak_rss_mb()
    start = time.perf_counter()
    similar = similar_pairs(fingerprints, scheme, threads=args.threads)
    seconds = time.perf_counter() - start
    peak, own = _peak_rss_mb(), _own_peak_mb()
    i, j, d = similar.every_pair()  # what is checked: every row pair, rows of one fingerprint too
    np.savez(args.output, i=i, j=j, d=d)
    return {"seconds": seconds, "peak_rss_mb": peak, "vmhwm_mb": own,
            "loaded_rss_mb": loaded_mb, "pairs": len(i)}


def worker_cpp(args) -> dict:
    import simhash  # simhash-pybind

    hashes = np.load(args.input).tolist()  # its API takes Python ints
    loaded_mb = _peak_rss_mb()
    start = time.perf_counter()
    unique = set(hashes)  # what simhash.find_all does first with a list
    built = time.perf_counter()
    matches = simhash.find_all(unique, args.blocks, args.k)
    seconds = time.perf_counter() - start
    peak, own = _peak_rss_mb(), _own_peak_mb()
    pairs = np.array(sorted(matches), dtype=np.uint64).reshape(-1, 2)
    np.save(args.output, pairs)
    return {"seconds": seconds, "set_seconds": built - start, "peak_rss_mb": peak,
            "vmhwm_mb": own, "loaded_rss_mb": loaded_mb, "pairs": len(matches)}


def worker_py(args) -> dict:
    from simhash import Simhash, SimhashIndex  # 1e0ng's pure-Python simhash

    values = np.load(args.input).tolist()
    loaded_mb = _peak_rss_mb()
    start = time.perf_counter()
    hashes = [Simhash(v, f=64) for v in values]
    index = SimhashIndex([(str(row), h) for row, h in enumerate(hashes)], f=64, k=args.k)
    built = time.perf_counter()
    found = set()
    for row, h in enumerate(hashes):
        for other in map(int, index.get_near_dups(h)):
            if other > row:
                found.add((row, other))
    seconds = time.perf_counter() - start
    peak, own = _peak_rss_mb(), _own_peak_mb()
    np.save(args.output, np.array(sorted(found), dtype=np.int64).reshape(-1, 2))
    return {"seconds": seconds, "build_seconds": built - start, "peak_rss_mb": peak,
            "vmhwm_mb": own, "loaded_rss_mb": loaded_mb, "pairs": len(found)}


WORKERS = {"ours": worker_ours, "cpp": worker_cpp, "py": worker_py}


# ---------------------------------------------------------------- fingerprints

@dataclass
class Data:
    fingerprints: np.ndarray
    planted_i: np.ndarray  # planted pairs, i < j, row positions
    planted_j: np.ndarray
    planted_d: np.ndarray
    shared_rows: int  # rows in groups of 3-5 sharing one fingerprint


def flip_masks(rng: np.random.Generator, distances: np.ndarray) -> np.ndarray:
    """A 64-bit mask per entry with exactly that many distinct bits set."""
    positions = np.argsort(rng.random((len(distances), 64)), axis=1)[:, :int(distances.max(initial=0))]
    bits = np.left_shift(np.uint64(1), positions.astype(np.uint64))
    bits[np.arange(bits.shape[1]) >= distances[:, None]] = 0
    return np.bitwise_or.reduce(bits, axis=1) if bits.shape[1] else np.zeros(len(distances), np.uint64)


def make_data(n: int, k: int, seed: int) -> Data:
    """n random fingerprints; n/200 planted pairs at each distance 0..k+1 (disjoint rows);
    n/5000 groups of 3-5 rows sharing one fingerprint."""
    rng = np.random.default_rng([seed, n])
    fingerprints = rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)
    rows = rng.permutation(n)
    distances = np.repeat(np.arange(k + 2), max(1, n // 200))
    m = len(distances)
    source, target = rows[:m], rows[m:2 * m]
    fingerprints[target] = fingerprints[source] ^ flip_masks(rng, distances)
    sizes = rng.integers(3, 6, size=max(1, n // 5000))
    members = rows[2 * m:2 * m + sizes.sum()]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    fingerprints[members] = fingerprints[members[starts]][np.repeat(np.arange(len(sizes)), sizes)]
    pi, pj, pd = [np.minimum(source, target)], [np.maximum(source, target)], [distances]
    for start, size in zip(starts, sizes):
        a, b = np.array(list(combinations(sorted(members[start:start + size]), 2))).T
        pi.append(a), pj.append(b), pd.append(np.zeros(len(a), np.int64))
    return Data(fingerprints, *(np.concatenate(p).astype(np.int64) for p in (pi, pj, pd)),
                shared_rows=int(sizes.sum()))


# ---------------------------------------------------------------- running the methods

@dataclass
class Run:
    method: str
    n: int
    params: str
    result: dict | None = None  # the worker's report; None if it failed or timed out
    note: str = ""
    pairs: object = None  # ours: (i, j, d); cpp: (m, 2) uint64 fingerprints; py: (m, 2) rows


def ensure_venv(name: str) -> tuple[Path | None, str]:
    """The peer's venv, made (and its packages installed) if missing; (python, version)."""
    packages, probe = PEERS[name]
    python = VENVS / name / "bin" / "python"
    done = python.exists() and subprocess.run([python, "-c", probe], capture_output=True, text=True)
    if not (done and done.returncode == 0):
        print(f"setting up {VENVS / name}: pip install {' '.join(packages)} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", VENVS / name], check=True)
        install = subprocess.run([python, "-m", "pip", "install", "--quiet", *packages],
                                 capture_output=True, text=True)
        if install.returncode:
            return None, f"pip install failed: {install.stderr.strip()[-400:]}"
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True)
        if done.returncode:
            return None, f"import failed: {done.stderr.strip()[-400:]}"
    return python, done.stdout.strip()


LAUNCHER = """
import json, subprocess, sys
for line in sys.stdin:
    job = json.loads(line)
    try:
        done = subprocess.run(job["command"], capture_output=True, text=True,
                              timeout=job["timeout"], cwd=job["cwd"])
        reply = {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
    except subprocess.TimeoutExpired:
        reply = {"timeout": True}
    print(json.dumps(reply), flush=True)
"""


class Launcher:
    """Starts the measured subprocesses from a small process of its own (stdlib only).

    On Linux a process started by fork or vfork and exec begins with ru_maxrss equal to the
    peak RSS of the process that started it: exec carries the old address space's high-water
    mark over. Started from this process, which holds the fingerprints and the results, a
    worker's ru_maxrss would be at least this process's peak (~0.5 GB at 10M) whatever the
    worker used. Started from the launcher (~10 MB), it is the worker's own; each worker also
    reports its VmHWM (its own address space only) and the two are checked to agree."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def run(self, command: list[str], timeout: float | None) -> dict:
        self.process.stdin.write(json.dumps({"command": command, "timeout": timeout,
                                             "cwd": str(ROOT)}) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def run_worker(launcher: Launcher, python, worker: str, input_path: Path, output: Path,
               timeout: float | None, **options) -> tuple[dict | None, str]:
    command = [str(python), str(Path(__file__).resolve()), "--worker", worker,
               "--input", str(input_path), "--output", str(output)]
    for key, value in options.items():
        command += [f"--{key}", str(value)]
    done = launcher.run(command, timeout)
    if done.get("timeout"):
        return None, f"did not finish within {timeout:.0f} s (stopped)"
    lines = [line for line in done["stdout"].splitlines() if line.startswith("RESULT ")]
    if done["returncode"] or not lines:
        return None, f"failed (exit {done['returncode']}): {done['stderr'].strip()[-400:]}"
    return json.loads(lines[-1][len("RESULT "):]), ""


# ---------------------------------------------------------------- checks (in this process)

def codes(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    return np.asarray(i, np.int64) * n + np.asarray(j, np.int64)


def check_valid(data: Data, i, j, d, k: int) -> tuple[bool, str]:
    f = data.fingerprints
    true_d = np.bitwise_count(f[i] ^ f[j]).astype(np.int64)
    c = codes(i, j, len(f))
    bad = int(np.sum(i >= j)) + int(np.sum(true_d != d)) + int(np.sum(d > k))
    repeats = len(c) - len(np.unique(c))
    return bad == 0 and repeats == 0, f"{len(c):,} pairs, {bad} wrong, {repeats} repeated"


def check_planted(data: Data, i, j, d, k: int) -> tuple[bool, str]:
    n = len(data.fingerprints)
    order = np.argsort(codes(i, j, n))
    ours = codes(i, j, n)[order]
    planted = codes(data.planted_i, data.planted_j, n)
    at = np.minimum(np.searchsorted(ours, planted), max(len(ours) - 1, 0))
    hit = ours[at] == planted if len(ours) else np.zeros(len(planted), bool)
    right = hit & (d[order][at] == data.planted_d) if len(ours) else hit
    within = data.planted_d <= k
    missed = int(np.sum(within & ~right))
    reported_far = int(np.sum(~within & hit))
    return missed == 0 and reported_far == 0, (
        f"{int(within.sum()):,} within k: {missed} missed; {int((~within).sum()):,} at k+1: "
        f"{reported_far} reported")


def check_sample(data: Data, i, j, k: int, size: int, seed: int) -> tuple[bool, str]:
    f = data.fingerprints
    n = len(f)
    rng = np.random.default_rng([seed, n, 1])
    planted_rows = np.concatenate((data.planted_i, data.planted_j))
    sample = np.unique(np.concatenate((rng.choice(planted_rows, size // 2, replace=False),
                                       rng.choice(n, size - size // 2, replace=False))))
    truth = []
    for row in sample:
        near = np.flatnonzero(np.bitwise_count(f ^ f[row]) <= k)
        near = near[near != row]
        truth.append(codes(np.minimum(near, row), np.maximum(near, row), n))
    truth = np.unique(np.concatenate(truth))
    involved = np.isin(i, sample) | np.isin(j, sample)
    ours = np.unique(codes(i[involved], j[involved], n))
    return np.array_equal(truth, ours), (
        f"{len(sample)} rows x all {n:,} rows by brute force: {len(truth):,} pairs, ours "
        f"{len(ours):,}")


def independent_fingerprint_pairs(fingerprints: np.ndarray, k: int) -> np.ndarray:
    """Every pair (a < b) of distinct fingerprints within k, not by blocks: split into two
    32-bit halves; a pair within k differs in at most k // 2 bits of one of them. So every
    fingerprint's half, and each change of up to k // 2 of its bits, is looked up by binary
    search in the sorted halves of all, and the candidates are checked on all 64 bits.
    (Looking up in sorted order of the halves keeps the searches in cache.)"""
    unique = np.unique(fingerprints)
    n = len(unique)
    found = []
    changes = [np.uint32(sum(1 << b for b in bits))
               for r in range(k // 2 + 1) for bits in combinations(range(32), r)]
    for shift in (np.uint64(0), np.uint64(32)):
        half = ((unique >> shift) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        order = np.argsort(half, kind="stable")
        ordered = half[order]
        run_start = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        run_end = np.repeat(np.append(run_start[1:], n), np.diff(np.append(run_start, n)))
        for change in changes:
            wanted = ordered ^ change
            low = np.minimum(np.searchsorted(ordered, wanted), n - 1)
            count = np.where(ordered[low] == wanted, run_end[low] - low, 0)
            a = np.repeat(order, count)
            b = order[np.repeat(low, count) + np.arange(len(a)) - np.repeat(np.cumsum(count) - count, count)]
            keep = (a < b) & (np.bitwise_count(unique[a] ^ unique[b]) <= k)
            found.append(codes(a[keep], b[keep], n))
    pair = np.unique(np.concatenate(found))
    return np.stack((unique[pair // n], unique[pair % n]), axis=1)


def fingerprint_pairs(data: Data, i, j) -> np.ndarray:
    """Our row pairs as the distinct pairs of different fingerprints they hold (a < b)."""
    a, b = data.fingerprints[i], data.fingerprints[j]
    differ = a != b
    pairs = np.stack((np.minimum(a, b)[differ], np.maximum(a, b)[differ]), axis=1)
    return np.unique(pairs, axis=0) if len(pairs) else pairs.reshape(0, 2)


def row_pair_count(data: Data, pairs: np.ndarray) -> int:
    """How many row pairs distinct-fingerprint pairs stand for, plus rows sharing one."""
    unique, counts = np.unique(data.fingerprints, return_counts=True)
    a, b = np.searchsorted(unique, pairs[:, 0]), np.searchsorted(unique, pairs[:, 1])
    counts = counts.astype(np.int64)
    return int(np.sum(counts[a] * counts[b]) + np.sum(counts * (counts - 1) // 2))


# ---------------------------------------------------------------- report

def label(n: int) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def show(runs: list[Run]) -> None:
    print()
    print(f"{'method':<34}{'rows':>11}{'time s':>10}{'peak RSS MB':>13}{'pairs':>11}  notes")
    print("-" * 100)
    for run in runs:
        r = run.result
        if r is None:
            print(f"{run.method + ' ' + run.params:<34}{run.n:>11,}{'-':>10}{'-':>13}{'-':>11}  {run.note}")
            continue
        extra = []
        if "set_seconds" in r:
            extra.append(f"set() of the ints {r['set_seconds']:.2f} s")
        if "build_seconds" in r:
            extra.append(f"index build {r['build_seconds']:.2f} s")
        extra.append(f"RSS after load {r['loaded_rss_mb']:.0f} MB")
        if run.note:
            extra.append(run.note)
        print(f"{run.method + ' ' + run.params:<34}{run.n:>11,}{r['seconds']:>10.2f}"
              f"{r['peak_rss_mb']:>13.0f}{r['pairs']:>11,}  {'; '.join(extra)}")


# ---------------------------------------------------------------- main

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                     epilog="See the module docstring for what is checked.")
    parser.add_argument("--sizes", help="comma-separated row counts (default 1000000,10000000)")
    parser.add_argument("--quick", action="store_true",
                        help="small smoke run: --sizes 20000,200000 unless given, --py-size 5000")
    parser.add_argument("--k", type=int, default=3, help="largest distance of a pair")
    parser.add_argument("--seed", type=int, default=2007)
    parser.add_argument("--threads", type=int, default=2, help="threads of ours")
    parser.add_argument("--py-size", type=int, default=200_000,
                        help="rows for the pure-Python peer (about 30 s on 2 cores)")
    parser.add_argument("--sample", type=int, default=256, help="rows checked by brute force")
    parser.add_argument("--exact-max", type=int, default=10_000_000,
                        help="largest size checked exactly by the independent method")
    parser.add_argument("--paper-timeout", type=float, default=300,
                        help="seconds the 4 x 16 scheme gets at sizes of 10M and more")
    parser.add_argument("--cpp-sweep", choices=["every", "first"], default="every",
                        help="try 4, 5 and 6 blocks at every size, or at the smallest only")
    parser.add_argument("--no-peers", action="store_true", help="ours only")
    # worker mode (internal)
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    parser.add_argument("--scheme", choices=sorted(SCHEMES), help=argparse.SUPPRESS)
    parser.add_argument("--blocks", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.py_size = args.sizes or "20000,200000", 5000
    args.sizes = args.sizes or "1000000,10000000"
    args.sizes = sorted(int(s) for s in str(args.sizes).split(","))
    return args


def run_ours(launcher, runs, n, path, tmp, args, scheme="fast", threads=None, timeout=None):
    threads = threads or args.threads
    blocks, key_blocks = SCHEMES[scheme]
    run = Run("ours", n, f"{scheme} {blocks} blocks key {key_blocks}, {threads} thr")
    out = tmp / f"ours-{scheme}-{threads}-{n}.npz"
    run.result, run.note = run_worker(launcher, sys.executable, "ours", path, out, timeout,
                                      scheme=scheme, threads=threads, k=args.k)
    if run.result:
        saved = np.load(out)
        run.pairs = (saved["i"], saved["j"], saved["d"])
    runs.append(run)
    print(f"  {run.method} {run.params} n={n:,}: "
          f"{run.result['seconds']:.2f} s" if run.result else f"  ours {run.params}: {run.note}", flush=True)
    return run


def run_peer(launcher, runs, name, python, n, path, tmp, args, **options):
    run = Run(f"peer {name}", n, " ".join(f"{k}={v}" for k, v in options.items()))
    out = tmp / f"{name}-{n}-{'-'.join(map(str, options.values()))}.npy"
    run.result, run.note = run_worker(launcher, python, name, path, out, None, k=args.k, **options)
    if run.result:
        run.pairs = np.load(out)
    runs.append(run)
    print(f"  {run.method} {run.params} n={n:,}: "
          f"{run.result['seconds']:.2f} s" if run.result else f"  {run.method}: {run.note}", flush=True)
    return run


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.worker:
        print("RESULT " + json.dumps(WORKERS[args.worker](args)), flush=True)
        return 0

    k = args.k
    print(f"all pairs within k={k} of random 64-bit fingerprints; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}; Python {platform.python_version()}, "
          f"numpy {np.__version__}; ours with {args.threads} threads")
    peers = {}
    if not args.no_peers:
        for name in PEERS:
            python, version = ensure_venv(name)
            peers[name] = python
            print(f"peer {name}: {version if python else 'unavailable: ' + version}")

    runs: list[Run] = []
    checks: list[tuple[str, bool, str]] = []
    all_found = True
    cpp_blocks = None  # the fastest at the smallest size
    fastest_cpp: dict[int, Run] = {}
    tmp = Path(tempfile.mkdtemp(prefix="allpairs-"))
    launcher = Launcher()
    try:
        sizes = list(args.sizes)
        if peers.get("py") and args.py_size not in sizes:
            sizes = sorted(sizes + [args.py_size])
        for n in sizes:
            start = time.perf_counter()
            data = make_data(n, k, args.seed)
            path = tmp / f"fingerprints-{n}.npy"
            np.save(path, data.fingerprints)
            print(f"\n{n:,} fingerprints: {len(data.planted_i):,} planted pairs "
                  f"(distances 0..{k + 1}; {data.shared_rows:,} rows in groups of 3-5 sharing one "
                  f"fingerprint), made in {time.perf_counter() - start:.1f} s", flush=True)
            main_size = n in args.sizes
            ours = []
            if main_size:
                ours.append(run_ours(launcher, runs, n, path, tmp, args, "fast"))
                ours.append(run_ours(launcher, runs, n, path, tmp, args, "paper",
                                     timeout=args.paper_timeout if n >= 10_000_000 else None))
                if n == args.sizes[-1] and args.threads != 1:
                    ours.append(run_ours(launcher, runs, n, path, tmp, args, "fast", threads=1))
            else:
                ours.append(run_ours(launcher, runs, n, path, tmp, args, "fast"))
            cpp = []
            if main_size and peers.get("cpp"):
                sweep = CPP_BLOCKS if cpp_blocks is None or args.cpp_sweep == "every" else (cpp_blocks,)
                for blocks in sweep:
                    cpp.append(run_peer(launcher, runs, "cpp", peers["cpp"], n, path, tmp, args,
                                        blocks=blocks))
                done = [r for r in cpp if r.result]
                if done and len(sweep) > 1:
                    best = min(done, key=lambda r: r.result["seconds"])
                    best.note = "fastest of the block counts at this size"
                    if cpp_blocks is None:
                        cpp_blocks = int(best.params.split("=")[1])
                if done:
                    fastest_cpp[n] = min(done, key=lambda r: r.result["seconds"])
            py = []
            if n == args.py_size and peers.get("py"):
                py.append(run_peer(launcher, runs, "py", peers["py"], n, path, tmp, args))

            # checks
            def check(name, ok, detail):
                checks.append((f"{label(n)} {name}", bool(ok), detail))

            measured = [r for r in runs if r.n == n and r.result]
            if measured:
                worst = max(abs(r.result["peak_rss_mb"] - r.result["vmhwm_mb"]) for r in measured)
                check("peak RSS is the subprocess's own", worst <= 1,
                      f"ru_maxrss = VmHWM in all {len(measured)} subprocesses, largest difference "
                      f"{worst:.1f} MB")
            reference = None
            for run in ours:
                if run.result is None:
                    continue
                i, j, d = run.pairs
                ok, detail = check_planted(data, i, j, d, k)
                all_found &= ok
                check(f"planted, ours {run.params}", ok, detail)
                check(f"valid, ours {run.params}", *check_valid(data, i, j, d, k))
                if reference is None:
                    reference = run
                else:
                    same = all(np.array_equal(a, b) for a, b in zip(reference.pairs, run.pairs))
                    check(f"same pairs, ours {run.params} = {reference.params}", same,
                          f"{len(i):,} vs {len(reference.pairs[0]):,}")
            if reference is None:
                check("ours ran", False, "no run of ours finished")
                continue
            i, j, d = reference.pairs
            check(f"sample, ours {reference.params}", *check_sample(data, i, j, k, args.sample, args.seed))
            ours_fp = fingerprint_pairs(data, i, j)
            if n <= args.exact_max:
                start = time.perf_counter()
                exact = independent_fingerprint_pairs(data.fingerprints, k)
                rows = row_pair_count(data, exact)
                check(f"exact, ours {reference.params}",
                      np.array_equal(exact, ours_fp) and rows == len(i),
                      f"halves method: {len(exact):,} distinct-fingerprint pairs (ours {len(ours_fp):,}), "
                      f"{rows:,} row pairs (ours {len(i):,}), {time.perf_counter() - start:.0f} s")
            for run in cpp:
                if run.result:
                    check(f"peer cpp {run.params} = ours", np.array_equal(run.pairs, ours_fp),
                          f"{len(run.pairs):,} distinct-fingerprint pairs, ours {len(ours_fp):,}")
            for run in py:
                if run.result:
                    check("peer py = ours", np.array_equal(run.pairs, np.stack((i, j), axis=1)),
                          f"{len(run.pairs):,} row pairs, ours {len(i):,}")
            del data
    finally:
        launcher.close()
        shutil.rmtree(tmp, ignore_errors=True)

    show(runs)
    print()
    for name, ok, detail in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
    print("times: the call only (input loading excluded); peak RSS: ru_maxrss of the method's own "
          "subprocess (interpreter and input included; started from a small launcher, as a "
          "subprocess inherits the ru_maxrss of the process that starts it)")

    top = args.sizes[-1]
    fast = next((r for r in runs if r.n == top and r.method == "ours" and r.params.startswith("fast")
                 and r.result and r.params.endswith(f" {args.threads} thr")), None)
    peer = fastest_cpp.get(top)
    tag = label(top)
    figures = {f"allpairs_{tag}_s": f"{fast.result['seconds']:.2f}", "peak_rss_mb": f"{fast.result['peak_rss_mb']:.0f}",
               "all_found": int(all_found)} if fast else {"all_found": 0}
    if fast and peer:
        figures |= {f"peer_cpp_{tag}_s": f"{peer.result['seconds']:.2f}",
                    "cpp_ratio": f"{peer.result['seconds'] / fast.result['seconds']:.2f}"}
    print(" ".join(f"{key}={value}" for key, value in figures.items()))
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
