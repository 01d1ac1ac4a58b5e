"""spark-submit's entry point: `spark-submit --master URL .../dedup_pipeline/submit/spark_batch.py
[batch options]` runs `dedup-pipeline batch --engine spark` with the options given (a file, not
dedup_pipeline.jobs.spark: the functions of a script run as __main__ cannot be found by executors)."""

import sys

from dedup_pipeline.cli import main

if __name__ == "__main__":
    main(["batch", "--engine", "spark", *sys.argv[1:]], prog_name="dedup-pipeline")
