"""The Alembic scripts, shipped in the wheel as dedup_pipeline.migrations (pyproject.toml);
a regular package so that an editable install's finder imports it under that name too."""
