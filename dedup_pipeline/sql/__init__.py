"""The source database: rows read, the migrations (outbox, triggers, dedup_match), dedup_match written."""
