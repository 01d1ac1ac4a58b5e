"""The jobs: the batch (on every core, or on Spark), incremental checks, the outbox worker."""
