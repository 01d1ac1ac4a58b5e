"""What the tests take from the benchmarks, in one place: real Chinese text, the labelled
petition set, the synthetic data of a million-row report, and real servers in temporary
folders. The benchmarks never import the tests; the tests import this (and
tests/test_quality.py the quality benchmark it tests)."""

from benchmarks.corpus import documents, news_sentences, reviews
from benchmarks.mariadb import MariaDB
from benchmarks.mongo_process import MongoProcess
from benchmarks.quality.dataset import generate, write_sqlite
from benchmarks.report import synthetic

__all__ = ["documents", "news_sentences", "reviews", "MariaDB", "MongoProcess", "generate", "write_sqlite",
           "synthetic"]
