"""dedup-pipeline: near-duplicate detection for relational data (petition databases)."""

__version__ = "0.1.0"
