"""What a store asks of MongoDB, counted with pymongo's command monitoring (so the figures
hold for any MongoDB server): for the tests and benchmarks that bound it."""

from __future__ import annotations

from pymongo import monitoring


class Commands(monitoring.CommandListener):
    """The names of the commands sent, and the documents finds and getMores return."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.documents = 0

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.names.append(event.command_name)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        cursor = event.reply.get("cursor") or {}
        self.documents += len(cursor.get("firstBatch", cursor.get("nextBatch", [])))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass
