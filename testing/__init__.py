"""What the tests and the benchmarks share, kept apart from both: real Chinese text
(corpus), the labelled petition set (labelled, with its exact Jaccard guard, jaccard) and the
sample generator it is made from (make_sample, which also writes the bundled sample),
the synthetic data of a million-row report (report_data), and real servers in temporary
folders (mariadb, mongo_process).

Imported from the checkout (the tests' and the benchmarks' root), never installed: the wheel
ships dedup_pipeline only (pyproject.toml lists its packages)."""
