"""The service files of one server (DESIGN.md, "One server, every job"): systemd units for
the embedded store's server, `watch`, the review console and the nightly `batch`, written by
the package so that they name this installation's program, folder and configuration.

Each unit's text comes from one small function; `write_systemd` writes them all, with an
example of the environment file and a README saying how to install them. Pure text and
files: no driver, no server."""

from __future__ import annotations

import os
import re
import shlex
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .errors import EXIT_CONFIG, UsageError

if TYPE_CHECKING:
    from .config import Config

USER = GROUP = "dedup"
ENV_FILE = "/etc/dedup-pipeline/env"
PORT = 8765  # `serve`'s default port
NIGHTLY = "*-*-* 02:30:00"
STORE, WATCH, SERVE, BATCH, TIMER = ("dedup-store.service", "dedup-watch.service", "dedup-serve.service",
                                     "dedup-batch.service", "dedup-batch.timer")
HEADER = "# Written by `dedup-pipeline deploy systemd`"
# systemd's rule for a user or group name (and a numeric id); anything else could break the file
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?|[0-9]+")


def installed_program() -> tuple[str, ...]:
    """How a unit runs `dedup-pipeline`, absolute: the script pip installed for this Python
    (a venv's bin/), else this Python running the package. Neither looks along PATH, where a
    pyenv shim or another install may come first, and a venv's python is not resolved out of
    its venv (its symlink leads to the base interpreter, without the venv's packages)."""
    script = Path(sysconfig.get_path("scripts")) / "dedup-pipeline"
    if script.is_file() and os.access(script, os.X_OK):
        return (str(script),)
    return (os.path.abspath(sys.executable), "-m", "dedup_pipeline")


@dataclass(frozen=True)
class Settings:
    """Where and as whom the units run; the rest comes from the configuration. `workdir` is
    the services' working folder, against which a relative `[store] data_dir` resolves."""

    workdir: Path
    user: str = USER
    group: str = GROUP
    env_file: str = ENV_FILE
    port: int = PORT
    program: tuple[str, ...] = field(default_factory=installed_program)


def settings(workdir: str | os.PathLike | None = None, *, user: str = USER, group: str = GROUP,
             env_file: str = ENV_FILE, port: int = PORT) -> Settings:
    """Settings with `workdir` made absolute (default: the current folder), the names and
    paths checked: a value that would break a unit file is refused (UsageError)."""
    made = Settings(Path(os.path.abspath(workdir or os.getcwd())), user, group, env_file, port)
    for option, name in (("--user", made.user), ("--group", made.group)):
        if not _NAME.fullmatch(name):
            raise UsageError(f"{option} {name!r} is not a user or group name systemd accepts")
    if not os.path.isabs(made.env_file):
        raise UsageError(f"--env-file {made.env_file!r}: systemd needs an absolute path")
    if not 1 <= made.port <= 65535:
        raise UsageError(f"--port {made.port}: a port is from 1 to 65535")
    return made


def embedded(config: Config) -> bool:
    """Whether the jobs share the embedded store (no `[store] mongo_uri`, no DEDUP_MONGO_URI),
    whose server then runs as a unit of its own. A store in each process's memory cannot be
    shared at all: refused."""
    if config.store.kind == "memory":
        raise UsageError('[store] kind = "memory" keeps the block index in each process\'s memory: the services '
                         'would not share it; deploy with kind = "mongodb" (the embedded store or a MongoDB server)')
    return not config.store.mongo_uri


def config_file(config: Config) -> str | None:
    """The absolute path of the configuration file (`--config` or DEDUP_CONFIG), None for the
    built-in default."""
    from .config import Config as Loaded

    if config.path == Loaded.__dataclass_fields__["path"].default:
        return None
    return os.path.abspath(config.path)


# -- the units, one function each

Line = tuple[str, str] | str  # a setting, or a comment line


def store_unit(config: Config, s: Settings) -> str:
    """The embedded store's server, `store serve`: every other job finds it through the data
    folder, as it would a MongoDB server."""
    return _unit(
        "dedup-pipeline store: the embedded MongoDB-protocol server of the data folder, for every job",
        [], _service(config, s, STORE, [
            "# ready (sd_notify) once it answers and the other jobs can find it: they start after",
            ("Type", "notify"), ("ExecStart", _command(s, "store", "serve")), *_restart(),
            "# on SIGTERM the server closes its files; a large store may take a while",
            ("TimeoutStopSec", "5min")]),
        "multi-user.target")


def watch_unit(config: Config, s: Settings) -> str:
    """`watch`: every changed row as it comes (the binary log's when `[watch] changes` says so);
    SIGTERM, which `systemctl stop` sends, lets the current batch finish."""
    binlog = ("--from", "binlog") if config.watch.changes == "binlog" else ()
    return _unit(
        "dedup-pipeline watch: check new and changed petition rows as they come",
        _after(config), _service(config, s, WATCH, [
            ("ExecStart", _command(s, "watch", *binlog)), *_restart()]),
        "multi-user.target")


def serve_unit(config: Config, s: Settings) -> str:
    """The review console on 127.0.0.1, behind the organisation's HTTPS reverse proxy."""
    return _unit(
        "dedup-pipeline serve: the review console, behind the HTTPS reverse proxy",
        _after(config), _service(config, s, SERVE, [
            ("ExecStart", _command(s, "serve", "--behind-proxy", "--host", "127.0.0.1", "--port", str(s.port))),
            *_restart()]),
        "multi-user.target")


def batch_unit(config: Config, s: Settings) -> str:
    """The nightly `batch`, started by its timer (a oneshot: no time limit, no restart)."""
    return _unit(
        "dedup-pipeline batch: every similar pair of the table (started by dedup-batch.timer)",
        _after(config), _service(config, s, BATCH, [
            ("Type", "oneshot"),
            ("ExecStart", _command(s, "batch"))]),
        None)


def batch_timer(config: Config, s: Settings) -> str:
    """Starts the batch nightly; `Persistent` runs a night missed while the server was off."""
    return _unit("dedup-pipeline batch, nightly", [], "[Timer]\n" + _lines([
        ("OnCalendar", NIGHTLY), ("Persistent", "true"), ("Unit", BATCH)]), "timers.target")


UNITS = {STORE: store_unit, WATCH: watch_unit, SERVE: serve_unit, BATCH: batch_unit, TIMER: batch_timer}


def units(config: Config, s: Settings) -> dict[str, str]:
    """Every unit's file name and text; the store's only for the embedded store."""
    shared = embedded(config)
    return {name: make(config, s) for name, make in UNITS.items() if shared or name != STORE}


def _unit(description: str, after: list[Line], body: str, wanted_by: str | None) -> str:
    head = f"{HEADER} (dedup-pipeline {__version__}); write them again after an upgrade or a move, rather than edit.\n"
    install = f"\n[Install]\nWantedBy={wanted_by}\n" if wanted_by else ""
    return f"{head}[Unit]\n" + _lines([("Description", description), *after]) + "\n" + body + install


def _restart() -> list[Line]:
    """A long-running job is started again when it fails, unless its configuration is wrong
    (exit 2), which no restart mends."""
    return [("Restart", "on-failure"), ("RestartSec", "5"),
            "# exit 2: a configuration error, which no restart mends",
            ("RestartPreventExitStatus", str(EXIT_CONFIG))]


def _after(config: Config) -> list[Line]:
    """Start after the network and a local database, if any (ordering only: a unit that does
    not exist is ignored), and after the embedded store's server."""
    wants, after = ["network-online.target"], ["network-online.target", "mariadb.service", "mysql.service"]
    if embedded(config):
        wants.append(STORE)
        after.append(STORE)
    return [("Wants", " ".join(wants)), ("After", " ".join(after))]


def _service(config: Config, s: Settings, name: str, own: list[Line]) -> str:
    """[Service]: who, where and with what environment the job runs, then its own settings."""
    path = config_file(config)
    lines: list[Line] = [
        ("User", s.user), ("Group", s.group),
        "# the relative [store] data_dir (and a relative SQLite file) resolve here: every job shares one store",
        ("WorkingDirectory", _escaped(str(s.workdir))),
        "# secrets (DEDUP_SQL_URL, DEDUP_MONGO_URI, DEDUP_CONSOLE_SECRET): see env.example. Required, no '-':",
        "# without it a job would run on the file's settings alone (another database, its own store).",
        ("EnvironmentFile", _escaped(s.env_file)),
        *([("Environment", _word(f"DEDUP_CONFIG={path}"))] if path else []),
        ("Environment", "PYTHONUNBUFFERED=1"),
        "# the rows hold names and phone numbers: files made are not for others",
        ("UMask", "0027"), ("NoNewPrivileges", "true"),
        (f"# logs: standard output and error go to the journal (StandardOutput=journal is the default): "
         f"journalctl -u {name.removesuffix('.service')}"),
        ("SyslogIdentifier", name.removesuffix(".service")),
        *own]
    return "[Service]\n" + _lines(lines)


def _lines(lines: list[Line]) -> str:
    return "".join(f"{line}\n" if isinstance(line, str) else f"{line[0]}={line[1]}\n" for line in lines)


def _command(s: Settings, *args: str) -> str:
    """An ExecStart command line: each word quoted as needed, and `$` doubled in the arguments
    (where it starts a variable; the program's path is taken as written)."""
    program, *rest = (*s.program, *args)
    return " ".join([_word(program), *(_word(arg).replace("$", "$$") for arg in rest)])


def _word(arg: str) -> str:
    """One word of a command line or of Environment=: in double quotes when it holds a space,
    a quote, a backslash or a semicolon."""
    value = _escaped(arg)
    if value and not re.search(r"[\s\"'\\;]", value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _escaped(value: str) -> str:
    """A value as a unit file says it: `%` doubled (it starts a specifier); a control
    character (a line break would start another setting) refused."""
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise UsageError(f"{value!r} holds a line break or another control character: it cannot be in a unit file")
    return value.replace("%", "%%")


# -- the folder of files

ENV_EXAMPLE = """\
# The services' environment: copy to {env_file} (mode 0600, owner root: systemd reads it
# as root) and fill in what applies; an empty value is the same as none.
# The source database, replacing [source] url (e.g. mysql+pymysql://app:secret@db:3306/petitions?charset=utf8mb4)
DEDUP_SQL_URL=
# A MongoDB server, replacing [store] mongo_uri. {mongo}
DEDUP_MONGO_URI=
# The review console's signing key; empty: a key made once in the data folder (console-secret)
DEDUP_CONSOLE_SECRET=
# DEDUP_CONFIG is set by the units (Environment=); do not set it here: this file would override it.
"""

README = """\
Service files for dedup-pipeline on one server, written by `dedup-pipeline deploy systemd`
(dedup-pipeline {version}) for:

  program        {program}
  folder         {workdir}  (WorkingDirectory)
  configuration  {config}
  store          {store}
  user           {user}:{group}
  secrets        {env_file}

Install them, as root, in this folder:

  id {q_user} >/dev/null 2>&1 || useradd --system --home-dir {q_workdir} --shell /usr/sbin/nologin {q_user}
  install -d -o {q_user} -g {q_group} -m 0750 {q_workdir}
  [ -e {q_env_file} ] || install -D -m 0600 env.example {q_env_file}    # then fill it in
  cp {files} /etc/systemd/system/
  systemctl daemon-reload
{first}  systemctl enable --now {enable}

Run any other command (check, report, reviewer add, status) as the services do: as {user}
in {workdir}, with the same environment (never as root: the services could not open the
files root makes in the data folder):

  {run} COMMAND

Logs: journalctl -u dedup-watch (and dedup-serve, dedup-batch{store_log}). The console listens on
127.0.0.1:{port}: put the HTTPS reverse proxy in front (README.md, "The review console").
After an upgrade or a move, write these files again, copy them, and daemon-reload.
"""


@dataclass(frozen=True)
class Written:
    """What `write_systemd` wrote: the files in `out`, whether the embedded store's server is
    one of the units, and the configuration file the units name (None: the built-in sample)."""

    out: Path
    files: tuple[str, ...]
    embedded: bool
    config_file: str | None
    settings: Settings


def write_systemd(config: Config, s: Settings, out: str | os.PathLike) -> Written:
    """Write the units, env.example and README.txt to `out` (made if missing). A store unit
    written there before for the embedded store is removed when the store is a MongoDB server,
    so that copying the folder's units cannot install it."""
    folder = Path(out)
    made = {**units(config, s), "env.example": _env_example(config, s), "README.txt": _readme(config, s)}
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in made.items():
        (folder / name).write_text(text, encoding="utf-8")
    stale = folder / STORE
    if STORE not in made and stale.is_file() and stale.read_text(encoding="utf-8").startswith(HEADER):
        stale.unlink()
    return Written(folder, tuple(made), STORE in made, config_file(config), s)


def _env_example(config: Config, s: Settings) -> str:
    mongo = ("Leave it empty: these units serve the embedded store (dedup-store.service)." if embedded(config)
             else "These units were written for a MongoDB server: set it here if the configuration file does not.")
    return ENV_EXAMPLE.format(env_file=s.env_file, mongo=mongo)


def _readme(config: Config, s: Settings) -> str:
    shared = embedded(config)
    path = config_file(config)
    names = [name for name in UNITS if shared or name != STORE]
    run = shlex.join(["systemd-run", "--wait", "--pipe", "--collect", "-p", f"User={s.user}", "-p", f"Group={s.group}",
                      "-p", f"WorkingDirectory={s.workdir}", "-p", f"EnvironmentFile={s.env_file}",
                      *(["-E", f"DEDUP_CONFIG={path}"] if path else []), *s.program])
    first = "  systemctl start dedup-store    # the embedded store's server first\n" if shared else ""
    first += (f"  {run} migrate    # the tables (or give the DBA `migrate --sql`)\n"
              "  systemctl start dedup-batch    # the first batch; returns when it is done\n")
    store = (f"the embedded store in {s.workdir / config.store.data_dir}, served by {STORE}" if shared
             else "the MongoDB server of [store] mongo_uri or DEDUP_MONGO_URI")
    return README.format(
        version=__version__, program=shlex.join(s.program), workdir=s.workdir, store=store, user=s.user,
        group=s.group, env_file=s.env_file, port=s.port, run=run, first=first, files=" ".join(names),
        config=path or "none: the built-in sample (SQLite); write them again with --config FILE for your table",
        enable=" ".join(n.removesuffix(".service") for n in names if n != BATCH),
        store_log=", dedup-store" if shared else "",
        **{f"q_{k}": shlex.quote(str(v)) for k, v in
           {"user": s.user, "group": s.group, "workdir": s.workdir, "env_file": s.env_file}.items()})
