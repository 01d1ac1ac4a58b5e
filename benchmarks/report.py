"""Time and size of the admin report at scale: 1,000,000 rows scanned, 100,000 groups.

    python benchmarks/report.py [--rows 1000000] [--groups 100000] [--top 200] [--out report.html]

Builds synthetic results (testing/report_data.py: petition-like rows, groups of realistic
sizes — mostly pairs, a few large campaigns — and the pairs inside them), then times render_html and the CSV / JSONL exports of every group and pair.
Last line: report_build_s=<seconds to build the HTML> report_mb=<its size in MB>
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dedup_pipeline.report.render import groups_table, pairs_table, render_html, write_csv, write_jsonl  # noqa: E402
from testing.report_data import synthetic  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=100_000)
    parser.add_argument("--top", type=int, default=200)
    parser.add_argument("--out", help="keep the HTML report here (default: a temporary file)")
    args = parser.parse_args()

    start = time.perf_counter()
    data = synthetic(args.rows, args.groups)
    print(f"synthetic data: {args.rows:,} rows, {args.groups:,} groups, "
          f"{sum(len(g) for g in data.groups):,} grouped rows, {len(data.pairs):,} pairs "
          f"({time.perf_counter() - start:.1f} s to make)")
    start = time.perf_counter()
    html = render_html(data, top=args.top)
    build = time.perf_counter() - start
    size_mb = len(html.encode("utf-8")) / 1e6
    print(f"render_html: {build:.2f} s, {size_mb:.2f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or os.path.join(tmp, "report.html")
        with open(out, "w", encoding="utf-8") as f:
            f.write(html)
        for name, table, write in [("groups.csv", groups_table, write_csv), ("pairs.csv", pairs_table, write_csv),
                                   ("groups.jsonl", groups_table, write_jsonl)]:
            start = time.perf_counter()
            path = os.path.join(tmp, name)
            count = write(path, table(data, ["title", "name", "category", "created_at", "content"]))
            print(f"{name}: {count:,} rows, {time.perf_counter() - start:.2f} s, "
                  f"{os.path.getsize(path) / 1e6:.1f} MB")
    print(f"report_build_s={build:.2f} report_mb={size_mb:.2f}")


if __name__ == "__main__":
    main()
