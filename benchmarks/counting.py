"""A `dedup-pipeline` command run as a user runs it, with what it asks of MongoDB counted:
round trips (handshakes apart), commands, and documents written by collection, counted with
pymongo's command monitoring (so the figures hold for a real MongoDB too), and its peak RSS
and its embedded server's (the data folder's shared server, stopped when the command ends).

    subprocess.run(counted(Path("counts.json"), "batch", "--config", "dedup.toml"))
    json.loads(Path("counts.json").read_text())
"""

from __future__ import annotations

import sys
from pathlib import Path

WRAPPER = r'''
import json, os, resource, sys
from collections import Counter
from pymongo import monitoring

HANDSHAKE = {"hello", "ismaster", "ping", "endsessions", "buildinfo", "saslstart", "saslcontinue"}
WRITES = {"insert": "documents", "update": "updates", "delete": "deletes"}
counts = {"round_trips": 0, "handshakes": 0, "commands": Counter(), "written": Counter()}


def written(name, command):
    """(collection, documents) pairs a write command carries."""
    if name in WRITES:
        return [(command[name], len(command.get(WRITES[name], ())))]
    if name == "findAndModify":
        return [(command[name], 1)]
    if name == "bulkWrite":
        spaces = [ns["ns"].split(".", 1)[-1] for ns in command.get("nsInfo", ())]
        return [(spaces[op[kind]], 1) for op in command.get("ops", ()) for kind in WRITES if kind in op]
    return []


class Count(monitoring.CommandListener):
    def started(self, event):
        if event.command_name.lower() in HANDSHAKE:
            counts["handshakes"] += 1
            return
        counts["round_trips"] += 1
        counts["commands"][event.command_name] += 1
        for collection, n in written(event.command_name, event.command):
            counts["written"][collection] += n

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


monitoring.register(Count())
import click
from dedup_pipeline import cli
from dedup_pipeline.store import shared

close = shared.ServerHandle.close
served = set()


def closed(server):
    """The server's peak RSS (VmHWM) kept as this command lets go of it."""
    if server._control is not None:
        served.add(server.folder)
        try:
            with open(f"/proc/{server.pid}/status") as status:  # a server ended (by `stop`) has none
                peak = next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0)
            counts["rss_server_kb"] = max(counts.get("rss_server_kb", 0), peak)
        except OSError:
            pass
    close(server)


shared.ServerHandle.close = closed

code = 0
try:
    cli.main(sys.argv[2:], standalone_mode=False)
except click.ClickException as e:
    e.show()
    code = e.exit_code
finally:
    counts["rss_self_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for folder in served:  # each command measured with a server of its own, as a night meets it
        shared.stop(folder)
    counts["rss_children_kb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    counts.setdefault("rss_server_kb", 0)
    with open(sys.argv[1], "w") as f:
        json.dump(counts, f)
sys.exit(code)
'''


def counted(out: Path, *args: str) -> list[str]:
    """The command line running `dedup-pipeline *args`, its counts written to `out` as JSON
    when it exits (a worker stopped by SIGTERM exits normally)."""
    return [sys.executable, "-c", WRAPPER, str(out), *args]
