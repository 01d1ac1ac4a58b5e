"""Settings: one validated object, loaded from TOML, with URLs and secrets from the
environment, passed down to everything that needs it.

Every error says which key is wrong, what was found and what to write instead.
"""

from __future__ import annotations

import logging
import math
import os
import tomllib
from dataclasses import MISSING, asdict, dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from .core.blocks import BlockScheme, SchemeError
from .errors import EXIT_CONFIG, DedupError
from .masking import mask_url  # here too: config.mask_url is imported across the package
from .core.shingles import ShingleScheme
from .core.features import DEFAULT_WEIGHTS, ROLES, Field
from .core.text import PUNCTUATION_MODES
from .core.weighting import LENGTHS, MAX_FACTOR, WEIGHTINGS

ENV_SQL_URL = "DEDUP_SQL_URL"
ENV_MONGO_URI = "DEDUP_MONGO_URI"
ENV_CONFIG = "DEDUP_CONFIG"
DEFAULT_DATA_DIR = "dedup-data"
# [scheme] names changed, the old ones still read with a deprecation line: old -> new.
RENAMED_KEYS = {"edits": "slips"}
RENAMED_SCHEMES = {"blocks": "simhash"}

log = logging.getLogger(__name__)


class ConfigError(DedupError, ValueError):
    """The configuration cannot be used; the message says where and how to fix it."""

    exit_code = EXIT_CONFIG


@dataclass(frozen=True)
class SourceConfig:
    url: str
    table: str
    id_column: str = "id"
    sample: bool = False


@dataclass(frozen=True)
class FingerprintConfig:
    bits: int = 64
    k: int = 3
    punctuation: str = "space"
    tokenizer: str = "auto"
    # how the words of long fields weigh (weighting.py): the paper's plain term frequency; the
    # seeds' weightings are options, measured in benchmarks/quality/RESULTS.md
    weighting: str = "tf"
    length: str = "none"
    noun_weight: float = 1.0
    verb_weight: float = 1.0
    marker_weight: float = 1.0
    title_weight: float = 1.0
    title_field: str = "title"



SCHEMES = ("shingles", "simhash")
SIMHASH_KEYS = ("blocks", "key_blocks")  # the [scheme] keys "simhash" reads; the others are the shingles'
STORE_KINDS = ("mongodb", "memory")  # [store] kind: MongoDB (or the embedded server), or this process's memory


@dataclass(frozen=True)
class SchemeConfig:
    name: str = "shingles"
    # "simhash": SimHash fingerprints within k bits, filed by blocks (seed 003)
    blocks: int = 4
    key_blocks: int = 1
    # "shingles": character shingles confirmed by exact similarity; defaults in shingles.py
    size: int = ShingleScheme.size
    key_size: int = ShingleScheme.key_size
    keys: int = ShingleScheme.keys
    threshold: float = ShingleScheme.threshold
    containment: float = ShingleScheme.containment
    verbatim: float = ShingleScheme.verbatim
    verbatim_containment: float = ShingleScheme.verbatim_containment
    slips: int = ShingleScheme.slips
    numbers: int = ShingleScheme.numbers
    submitter: tuple[str, ...] = ShingleScheme.submitter
    filed: str = ShingleScheme.filed
    days: int = ShingleScheme.days
    bands: int = ShingleScheme.bands
    rows_per_band: int = ShingleScheme.rows_per_band
    corroborate: bool = ShingleScheme.corroborate

    def stored(self) -> str:
        """The dataclass's repr under the names before RENAMED_KEYS and RENAMED_SCHEMES: what
        the scheme's settings text holds (schemes.py). That text is stored with every batch and
        hashed into every row's content hash, so a store built before a rename is used as it
        is, not rebuilt."""
        old_key = {new: old for old, new in RENAMED_KEYS.items()}
        old_name = {new: old for old, new in RENAMED_SCHEMES.items()}
        values = {**asdict(self), "name": old_name.get(self.name, self.name)}
        return f"SchemeConfig({', '.join(f'{old_key.get(k, k)}={v!r}' for k, v in values.items())})"


@dataclass(frozen=True)
class StoreConfig:
    kind: str = "mongodb"  # STORE_KINDS: which store open_store makes
    mongo_uri: str = ""
    database: str = "dedup"
    data_dir: str = DEFAULT_DATA_DIR
    # Seconds the embedded store's server, started by the first command that needs it, keeps
    # running once no process uses it (`store serve` runs it until stopped).
    idle_s: float = 60.0


@dataclass(frozen=True)
class BatchConfig:
    chunk_size: int = 2000
    processes: int = 0


CHANGES = ("triggers", "binlog")  # [watch] changes: where `watch` learns which rows changed
MAX_SERVER_ID = 2**32 - 1  # a MySQL server id is 32 bits


@dataclass(frozen=True)
class WatchConfig:
    # "triggers": the outbox the triggers of `migrate` fill; "binlog": the server's row-based
    # binary log (`migrate --from binlog`: no trigger, no outbox). `--from` overrides it.
    changes: str = "triggers"
    # The replica id `watch --from binlog` reads the log under: unique among the server's
    # replicas (a second reader with the same id disconnects the first); 0 = a random one per run.
    server_id: int = 0


@dataclass(frozen=True)
class ReportConfig:
    date_column: str = ""
    category_column: str = ""


@dataclass(frozen=True)
class StatusConfig:
    # `dedup-pipeline status` says unhealthy (exit 1, for cron, Zabbix or Nagios) when the live
    # batch went live longer ago than this (a nightly batch that stopped running) ...
    batch_max_age_hours: float = 26.0
    # ... or a change of the table has waited longer than this for `watch` (the oldest entry
    # of the outbox, or the binary log moved past a position stored longer ago than this).
    change_max_age_minutes: float = 10.0


# Column names that look like phones' (glob patterns, any case): what [console] masked_columns is by default.
PHONE_COLUMNS = ("*phone*", "*mobile*", "tel", "tel_*", "*_tel", "*电话*", "*手机*", "*联系方式*")
MAX_IDLE_MINUTES = 8 * 60  # a console session ends 8 hours after sign-in whatever it does


@dataclass(frozen=True)
class ConsoleConfig:
    # A console session unused this long ends (the live counts' refresh is no use).
    idle_minutes: float = 30.0
    # The columns shown masked (138****0000) to reviewers without `reviewer add --sees-phones`:
    # glob patterns of column names, any case; [] masks nothing.
    masked_columns: tuple = PHONE_COLUMNS


@dataclass(frozen=True)
class ReviewConfig:
    # The audit (抽检): how many of the rule's own pairs of each batch are drawn at random for a
    # reviewer, so that its precision is estimated from a sample; 0 draws none.
    audit_pairs: int = 50


@dataclass(frozen=True)
class MattersConfig:
    # 热点事项: rows of different people naming one object (a building, a company, a site, a
    # crossing) and one problem, each within `window_days` of another, are one matter. Off by
    # default until measured good enough on data its rules were not written from (docs/performance.md).
    find: bool = False
    window_days: int = 30
    # The columns the object, the problem and the day are read from, and who wrote the row
    # ("" or []: the defaults, `columns_of`: a field named title, the first long field, a
    # field named address, [scheme] submitter, [scheme] filed or [report] date_column).
    title: str = ""
    content: str = ""
    address: str = ""
    people: tuple = ()
    date: str = ""


@dataclass(frozen=True)
class Config:
    source: SourceConfig
    fields: tuple[Field, ...]
    fingerprint: FingerprintConfig = field(default_factory=FingerprintConfig)
    scheme: SchemeConfig = field(default_factory=SchemeConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    batch: BatchConfig = field(default_factory=BatchConfig)
    report: ReportConfig = field(default_factory=ReportConfig)
    watch: WatchConfig = field(default_factory=WatchConfig)
    status: StatusConfig = field(default_factory=StatusConfig)
    console: ConsoleConfig = field(default_factory=ConsoleConfig)
    review: ReviewConfig = field(default_factory=ReviewConfig)
    matters: MattersConfig = field(default_factory=MattersConfig)
    path: str = "<built-in default>"

    @property
    def shingles(self) -> bool:
        """Whether rows are compared by shingles (else by SimHash fingerprints)."""
        return self.scheme.name == "shingles"

    def masked(self) -> dict[str, Any]:
        """The effective settings as plain data, with every password masked: the scheme in use,
        not the other scheme's settings (read and checked, they decide nothing)."""
        data = asdict(self)
        if self.shingles:
            del data["fingerprint"]
        data["scheme"] = {key: value for key, value in data["scheme"].items()
                          if key == "name" or (key in SIMHASH_KEYS) != self.shingles}
        data["source"]["url"] = mask_url(self.source.url)
        data["store"]["mongo_uri"] = mask_url(self.store.mongo_uri)
        data["fields"] = {f.name: {"role": f.role, "weight": f.effective_weight, "encoding": f.encoding}
                          for f in self.fields}
        return data


_SECTIONS: dict[str, type] = {
    "source": SourceConfig, "fingerprint": FingerprintConfig, "scheme": SchemeConfig,
    "store": StoreConfig, "batch": BatchConfig, "report": ReportConfig, "watch": WatchConfig,
    "status": StatusConfig, "console": ConsoleConfig, "review": ReviewConfig, "matters": MattersConfig,
}
_FIELD_KEYS = {"role", "weight", "encoding"}
MAX_WEIGHT = 1000.0  # weights are relative (defaults 2 and 1); inf or nan would void every sum
# The allowed whole numbers: wide around what was measured (benchmarks/quality), narrow enough
# that a typo cannot exhaust memory or hang a batch.
_RANGES = {
    ("fingerprint", "k"): (0, 32),
    ("scheme", "size"): (1, 8), ("scheme", "key_size"): (1, 8), ("scheme", "keys"): (1, 64),
    ("scheme", "bands"): (1, 64), ("scheme", "rows_per_band"): (1, 32), ("scheme", "slips"): (0, 100), ("scheme", "numbers"): (0, 100),
    ("scheme", "days"): (0, 36_500),
    ("batch", "chunk_size"): (1, 1_000_000), ("batch", "processes"): (0, 256),
    ("watch", "server_id"): (0, MAX_SERVER_ID),
    ("review", "audit_pairs"): (0, 100_000),
    ("matters", "window_days"): (1, 3_650),
}
MAX_TABLES = 1000  # [scheme] blocks choose key_blocks: each fingerprint is filed once per table


def default_config_text() -> str:
    """The built-in configuration: the bundled sample in SQLite, the embedded store."""
    return resources.files("dedup_pipeline").joinpath("data/default.toml").read_text("utf-8")


def load_config(path: str | os.PathLike | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read, override from the environment and validate; no path and no DEDUP_CONFIG
    means the built-in default."""
    env = os.environ if env is None else env
    path = path or env.get(ENV_CONFIG) or None
    if path is None:
        return parse_config(tomllib.loads(default_config_text()), env)
    try:
        text = Path(path).read_text("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"configuration file {path} does not exist; copy config/example.toml "
                          f"and edit it, or leave out --config to use the built-in sample") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read configuration file {path}: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None
    return parse_config(data, env, str(path))


def parse_config(data: Mapping[str, Any], env: Mapping[str, str], path: str = "<built-in default>") -> Config:
    """A Config from parsed TOML and the environment, or a ConfigError saying what is wrong."""
    data = _renamed(data, path)
    _no_unknown(data, set(_SECTIONS) | {"fields"}, "the top level")
    sections = {name: _section(data, name, cls) for name, cls in _SECTIONS.items() if name != "source"}
    if "source" not in data:
        raise ConfigError("missing [source] section: it names the table to read, e.g.\n"
                          "[source]\nurl = \"mysql+pymysql://user@host/db\"\ntable = \"petition\"")
    source = _section(data, "source", SourceConfig)
    if env.get(ENV_SQL_URL):  # the URL of a database that exists: never filled with the sample
        source = replace(source, url=env[ENV_SQL_URL], sample=False)
    store = _override(sections["store"], "mongo_uri", env.get(ENV_MONGO_URI))
    config = Config(source=source, fields=_fields(data.get("fields")), fingerprint=sections["fingerprint"],
                    scheme=sections["scheme"], store=store, batch=sections["batch"],
                    report=sections["report"], watch=sections["watch"], status=sections["status"],
                    console=sections["console"], review=sections["review"], matters=sections["matters"],
                    path=path)
    _check(config)
    return config


def _renamed(data: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """`data` under the current names: an old name is read as its new one, with one line on
    stderr (a warning logged) saying so."""
    scheme = data.get("scheme")
    if not isinstance(scheme, dict):
        return data
    scheme = dict(scheme)
    for old, new in RENAMED_KEYS.items():
        if old in scheme:
            if new in scheme:
                raise ConfigError(f"[scheme] sets both {old} and {new}: {old} is the old name of {new}; keep {new}")
            scheme[new] = scheme.pop(old)
            log.warning("%s: [scheme] %s is now named %s; %s is still read, for now", path, old, new, old)
    name = scheme.get("name")
    if isinstance(name, str) and name in RENAMED_SCHEMES:
        scheme["name"] = RENAMED_SCHEMES[name]
        log.warning('%s: [scheme] name = "%s" is now named "%s"; "%s" is still read, for now', path, name,
                    scheme["name"], name)
    return {**data, "scheme": scheme}


def _section(data: Mapping[str, Any], name: str, cls: type) -> Any:
    raw = data.get(name, {})
    if not isinstance(raw, dict):
        raise ConfigError(f"[{name}] must be a table of keys, not {type(raw).__name__}")
    fields = cls.__dataclass_fields__
    _no_unknown(raw, set(fields), f"[{name}]")
    for key in _REQUIRED.get(name, ()):
        if key not in raw:
            raise ConfigError(f"[{name}] {key} is required")
    for key, value in raw.items():
        default = fields[key].default
        expected = str if default is MISSING else type(default)
        if expected is float and type(value) is int:
            raw = {**raw, key: float(value)}
        elif expected is tuple and type(value) is list and all(type(v) is str for v in value):
            raw = {**raw, key: tuple(value)}
        elif type(value) is not expected:
            raise ConfigError(f"[{name}] {key} must be {_TYPE_NAMES[expected]}, got {value!r}")
    return cls(**raw)


_REQUIRED = {"source": ("url", "table")}
_TYPE_NAMES = {str: "a string", int: "a whole number", float: "a number", bool: "true or false",
               tuple: "a list of strings"}


def _fields(raw: Any) -> tuple[Field, ...]:
    if not raw:
        raise ConfigError("[fields] is empty: name at least one column and its role, e.g.\n"
                          "[fields]\ntitle = \"short\"\ncontent = \"long\"")
    if not isinstance(raw, dict):
        raise ConfigError("[fields] must be a table: column = \"short\" or column = { role = ..., weight = ... }")
    return tuple(_field(name, spec) for name, spec in raw.items())


def _field(name: str, spec: Any) -> Field:
    where = f"[fields] {name}"
    if isinstance(spec, str):
        spec = {"role": spec}
    if not isinstance(spec, dict):
        raise ConfigError(f"{where} must be a role (\"short\", \"long\" or \"ignore\") or a table "
                          f"{{ role = ..., weight = ... }}, got {spec!r}")
    _no_unknown(spec, _FIELD_KEYS, where)
    role = spec.get("role", "long")
    if role not in ROLES:
        raise ConfigError(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
    weight = spec.get("weight")
    if weight is not None and (isinstance(weight, bool) or not isinstance(weight, (int, float))
                               or not 0 <= weight <= MAX_WEIGHT):
        raise ConfigError(f"{where}: weight must be a number from 0 to {MAX_WEIGHT:,g} (default "
                          f"{DEFAULT_WEIGHTS[role]:g} for {role}), got {weight!r}")
    encoding = spec.get("encoding", "utf-8")
    try:
        "".encode(encoding)
    except (LookupError, TypeError):
        raise ConfigError(f"{where}: unknown encoding {encoding!r} (try \"utf-8\" or \"gbk\")") from None
    return Field(name, role, None if weight is None else float(weight), encoding)


def _check(config: Config) -> None:
    fp = config.fingerprint
    if fp.bits != 64:
        raise ConfigError(f"[fingerprint] bits = {fp.bits}: only 64-bit fingerprints are supported")
    if fp.punctuation not in PUNCTUATION_MODES:
        raise ConfigError(f"[fingerprint] punctuation must be one of {', '.join(PUNCTUATION_MODES)}, "
                          f"got {fp.punctuation!r}")
    if fp.tokenizer not in ("auto", "jieba"):
        raise ConfigError(f"[fingerprint] tokenizer must be \"auto\" (rjieba when installed, else "
                          f"jieba) or \"jieba\", got {fp.tokenizer!r}")
    _check_weighting(config)
    scheme = config.scheme
    if scheme.name not in SCHEMES:
        raise ConfigError(f"[scheme] name {scheme.name!r} is unknown; available: "
                          + ", ".join(f'"{name}"' for name in SCHEMES))
    _check_ranges(config)
    for key in ("threshold", "containment", "verbatim", "verbatim_containment"):
        if not 0 < getattr(scheme, key) <= 1:
            raise ConfigError(f"[scheme] {key} must be above 0 and at most 1, got {getattr(scheme, key)}")
    try:
        BlockScheme(config.fingerprint.bits, config.fingerprint.k, config.scheme.blocks, config.scheme.key_blocks)
    except SchemeError as e:
        raise ConfigError(f"[scheme] {e}") from None
    tables = math.comb(scheme.blocks, scheme.key_blocks)
    if tables > MAX_TABLES:
        raise ConfigError(f"[scheme] blocks = {scheme.blocks} keyed {scheme.key_blocks} at a time make "
                          f"{tables:,} tables; at most {MAX_TABLES:,}: use fewer blocks or key_blocks")
    if config.watch.changes not in CHANGES:
        raise ConfigError(f"[watch] changes {config.watch.changes!r} is unknown; available: "
                          + ", ".join(f'"{name}"' for name in CHANGES))
    if config.store.kind not in STORE_KINDS:
        raise ConfigError(f"[store] kind {config.store.kind!r} is unknown; available: "
                          + ", ".join(f'"{name}"' for name in STORE_KINDS))
    _check_status(config.status)
    if not 0 < config.console.idle_minutes <= MAX_IDLE_MINUTES:
        raise ConfigError(f"[console] idle_minutes must be above 0 and at most {MAX_IDLE_MINUTES} (a session "
                          f"ends 8 hours after sign-in anyway), got {config.console.idle_minutes}")
    _check_database_name(config.store.database)
    _check_mongo_uri(config.store.mongo_uri)
    if not 0 <= config.store.idle_s <= 86_400 * 365:
        raise ConfigError(f"[store] idle_s must be from 0 to a year of seconds, got {config.store.idle_s}")
    for key, example in (("table", "petition"), ("id_column", "id")):
        if not getattr(config.source, key):
            raise ConfigError(f"[source] {key} is empty: name the {key.replace('_', ' ')}, e.g. \"{example}\"")
    if "://" not in config.source.url:
        raise ConfigError(f"[source] url (or {ENV_SQL_URL}) must be an SQLAlchemy URL such as "
                          f"mysql+pymysql://user:password@host/db, got {mask_url(config.source.url)!r}")
    names = [f.name for f in config.fields]
    if config.source.id_column in names:
        raise ConfigError(f"[fields] {config.source.id_column}: the id column is not a field")
    for key in ("date_column", "category_column"):
        column = getattr(config.report, key)
        if column and column not in names:
            raise ConfigError(f"[report] {key} {column!r} is not a field; add it under [fields] "
                              f"(as \"ignore\" if it should not count in the fingerprint)")
    if all(f.role == "ignore" for f in config.fields):
        raise ConfigError("[fields]: every field is \"ignore\"; give at least one a role short or long")
    if scheme.name == "shingles" and all(f.role != "long" for f in config.fields):
        raise ConfigError("[scheme] name = \"shingles\" compares the long fields, and [fields] has none: "
                          "give the text column the role \"long\", or use name = \"simhash\"")
    missing = [name for name in scheme.submitter if name not in names]
    if missing:
        raise ConfigError(f"[scheme] submitter names {', '.join(map(repr, missing))}, not in [fields]: "
                          f"list only fields that say who filed the row (as \"ignore\" if they should not "
                          f"count otherwise)")
    matters = config.matters
    named = [column for column in (matters.title, matters.content, matters.address, matters.date, *matters.people)
             if column and column not in names]
    if named:
        raise ConfigError(f"[matters] names {', '.join(map(repr, named))}, not in [fields]: name fields of the "
                          f"table (as \"ignore\" if they should not count otherwise), or \"\" for the default")
    if scheme.filed and scheme.filed not in names:
        raise ConfigError(f"[scheme] filed {scheme.filed!r} is not in [fields]: name the column holding the day "
                          f"a row was filed (as \"ignore\" if it should not count otherwise), or \"\" for none")


def _check_weighting(config: Config) -> None:
    fp = config.fingerprint
    if fp.weighting not in WEIGHTINGS:
        raise ConfigError(f"[fingerprint] weighting must be \"tf\" (term frequency, the paper's) or "
                          f"\"tfidf\" (times jieba's IDF, seed 002), got {fp.weighting!r}")
    if fp.length not in LENGTHS:
        raise ConfigError(f"[fingerprint] length must be \"none\", \"normal\" (seed 002's term-length "
                          f"factor) or \"minmax\" (seed 004's word length), got {fp.length!r}")
    for key in ("noun_weight", "verb_weight", "marker_weight", "title_weight"):
        value = getattr(fp, key)
        if not 0 <= value <= MAX_FACTOR:
            raise ConfigError(f"[fingerprint] {key} must be a number from 0 to {MAX_FACTOR:g} "
                              f"(1 = off; the seed's marker and title weight is 5), got {value}")
    if fp.title_weight != 1.0 and fp.title_field not in [f.name for f in config.fields]:
        raise ConfigError(f"[fingerprint] title_field {fp.title_field!r} is not in [fields]: title_weight "
                          f"weighs the words of the long text found in that column; add it under [fields] "
                          f"(as \"ignore\" if it should not count otherwise) or set title_weight = 1")


def _check_ranges(config: Config) -> None:
    for (section, key), (low, high) in _RANGES.items():
        value = getattr(getattr(config, section), key)
        if not low <= value <= high:
            raise ConfigError(f"[{section}] {key} must be from {low:,} to {high:,}, got {value:,}")


# The longest ages [status] takes: a year.
MAX_STATUS_AGES = {"batch_max_age_hours": 24 * 366, "change_max_age_minutes": 60 * 24 * 366}


def _check_status(status: StatusConfig) -> None:
    for key, longest in MAX_STATUS_AGES.items():
        value = getattr(status, key)
        if not 0 < value <= longest:
            raise ConfigError(f"[status] {key} must be above 0 and at most {longest:,}, got {value}")


def _check_mongo_uri(uri: str) -> None:
    """A MongoDB URI's scheme, and its options as pymongo reads them: named now, where a client
    would warn (with its file paths) and ignore them."""
    if not uri:
        return
    where = f"[store] mongo_uri (or {ENV_MONGO_URI})"
    if not uri.startswith(("mongodb://", "mongodb+srv://")):
        raise ConfigError(f"{where} must start with mongodb:// or mongodb+srv://, got {mask_url(uri)!r}")
    from .store.mongo import uri_options_problem

    problem = uri_options_problem(uri)
    if problem:
        raise ConfigError(f"{where} {mask_url(uri)}: {problem}")


MONGO_NAME_FORBIDDEN = '/\\. "$*<>:|?'  # MongoDB's rules for a database name (Windows' are the widest)


def _check_database_name(name: str) -> None:
    """MongoDB's rules for a database name, checked here: the server's refusal came late,
    with advice about half-written rows."""
    where = f"[store] database {name!r}"
    if not name:
        raise ConfigError("[store] database is empty: name the MongoDB database, e.g. \"dedup\"")
    if "\0" in name:
        raise ConfigError(f"{where} holds NUL; use letters, digits, _ and -")
    bad = [c for c in MONGO_NAME_FORBIDDEN if c in name]
    if bad:
        raise ConfigError(f"{where} is not a MongoDB database name: it holds {', '.join(map(repr, bad))}; "
                          f"use letters, digits, _ and -")
    size = len(name.encode("utf-8"))
    if size >= 64:
        raise ConfigError(f"{where} is {size} bytes long; at most 63 (UTF-8) for MongoDB")


def _no_unknown(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ConfigError(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} in {where}; "
                          f"allowed: {', '.join(sorted(allowed))}")


def following(config: Config, changes: str | None) -> Config:
    """`config` with `--from`'s choice of where `watch` learns of changes, if given."""
    if changes is None or changes == config.watch.changes:
        return config
    updated = replace(config, watch=replace(config.watch, changes=changes))
    _check(updated)
    return updated


def _override(section: Any, key: str, value: str | None) -> Any:
    if not value:
        return section
    return type(section)(**{**asdict(section), key: value})
