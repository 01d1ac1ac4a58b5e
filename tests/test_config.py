"""Configuration: one validated object; every mistake named with its fix."""

from pathlib import Path

import pytest
import sqlalchemy as sa

from dedup_pipeline.config import ConfigError, following, load_config, mask_url, parse_config
from dedup_pipeline.sql.source import SqlSource
from dedup_pipeline.core.weighting import Weighting
from dedup_pipeline.core.schemes import block_scheme, featurizer, scheme_of, shingle_scheme

EXAMPLE = Path(__file__).parent.parent / "config" / "example.toml"


def minimal(**sections):
    data = {"source": {"url": "sqlite:///x.db", "table": "petition"}, "fields": {"content": "long"}}
    data.update(sections)
    return data


def test_example_configuration_loads():
    config = load_config(EXAMPLE, env={})
    assert config.source.table == "petition"
    assert [f.role for f in config.fields] == ["short"] * 5 + ["long", "ignore"]
    assert block_scheme(config).blocks == 4


def test_built_in_default_is_the_bundled_sample():
    config = load_config(env={})
    assert config.source.sample and config.source.url.startswith("sqlite:///")
    assert config.store.mongo_uri == ""


def test_environment_overrides_urls():
    config = load_config(EXAMPLE, env={"DEDUP_SQL_URL": "sqlite:///other.db",
                                       "DEDUP_MONGO_URI": "mongodb://m:1/"})
    assert config.source.url == "sqlite:///other.db"
    assert config.store.mongo_uri == "mongodb://m:1/"


def test_dedup_config_names_the_file(tmp_path):
    assert load_config(env={"DEDUP_CONFIG": str(EXAMPLE)}).path == str(EXAMPLE)


def test_the_words_weigh_by_the_papers_term_frequency_by_default():
    config = parse_config(minimal(), {})
    assert (config.fingerprint.weighting, config.fingerprint.length) == ("tf", "none")
    assert featurizer(config).weighting.plain


def test_tfidf_times_word_length_is_one_setting_away():
    config = parse_config(minimal(fingerprint={"weighting": "tfidf", "length": "minmax"}), {})
    assert featurizer(config).weighting == Weighting("tfidf", "minmax")


def test_the_seed_004_weights_reach_the_featurizer():
    config = parse_config(minimal(fields={"subject": "ignore", "content": "long"},
                                  fingerprint={"noun_weight": 2, "verb_weight": 1.5, "marker_weight": 5,
                                               "title_weight": 5, "title_field": "subject"}), {})
    weighting = featurizer(config).weighting
    assert (weighting.noun, weighting.verb, weighting.marker, weighting.title) == (2.0, 1.5, 5.0, 5.0)
    assert featurizer(config).title_field.name == "subject"


def test_watch_follows_the_triggers_by_default_and_from_overrides_the_file():
    config = parse_config(minimal(), {})
    assert config.watch.changes == "triggers"
    assert following(config, "binlog").watch.changes == "binlog" and following(config, None) is config


def test_field_defaults_and_explicit_weights():
    config = parse_config(minimal(fields={"name": "short", "content": {"role": "long", "weight": 1.5}}), {})
    assert [f.effective_weight for f in config.fields] == [2.0, 1.5]


@pytest.mark.parametrize("data, message", [
    (minimal(extra={}), r"unknown key extra in the top level"),
    (minimal(fingerprint={"kk": 3}), r"unknown key kk in \[fingerprint\]; allowed: bits, k"),
    (minimal(fingerprint={"k": "3"}), r"\[fingerprint\] k must be a whole number, got '3'"),
    (minimal(fingerprint={"k": True}), r"\[fingerprint\] k must be a whole number"),
    (minimal(fingerprint={"bits": 32}), r"only 64-bit"),
    (minimal(fingerprint={"punctuation": "drop"}), r"punctuation must be one of space, remove, keep"),
    (minimal(scheme={"blocks": 3}), r"blocks \(3\) must be greater than k \(3\).*use blocks = 4"),
    (minimal(fingerprint={"k": 5}), r"blocks \(4\) must be greater than k \(5\)"),
    (minimal(scheme={"name": "lsh"}), r"\[scheme\] name 'lsh' is unknown"),
    (minimal(scheme={"name": ["blocks"]}), r"\[scheme\] name must be a string, got \['blocks'\]"),
    (minimal(store={"kind": "redis"}), r"\[store\] kind 'redis' is unknown; available: \"mongodb\", \"memory\""),
    (minimal(fields={"content": "tokens"}), r"role 'tokens' is not one of short, long, ignore"),
    (minimal(fields={"content": {"role": "long", "weight": -1}}), r"weight must be a number from 0 to 1,000"),
    (minimal(fields={"content": {"role": "long", "weight": float("inf")}}),
     r"\[fields\] content: weight must be a number from 0 to 1,000 \(default 1 for long\), got inf"),
    (minimal(fields={"content": {"role": "long", "weight": float("nan")}}), r"weight must be a number from 0 to 1,000"),
    (minimal(fields={"content": {"role": "long", "weight": 1e9}}), r"weight must be a number from 0 to 1,000"),
    (minimal(scheme={"keys": 100_000_000}), r"\[scheme\] keys must be from 1 to 64, got 100,000,000"),
    (minimal(scheme={"bands": 1000}), r"\[scheme\] bands must be from 1 to 64, got 1,000"),
    (minimal(scheme={"size": 100}), r"\[scheme\] size must be from 1 to 8, got 100"),
    (minimal(fingerprint={"k": 10**6}), r"\[fingerprint\] k must be from 0 to 32, got 1,000,000"),
    (minimal(batch={"chunk_size": 10**9}), r"\[batch\] chunk_size must be from 1 to 1,000,000"),
    (minimal(batch={"processes": 100_000}), r"\[batch\] processes must be from 0 to 256"),
    (minimal(scheme={"name": "simhash", "blocks": 64, "key_blocks": 32}),
     r"\[scheme\] blocks = 64 keyed 32 at a time make 1,832,624,140,942,590,534 tables; at most 1,000"),
    (minimal(fields={"content": {"role": "long", "encodng": "gbk"}}), r"unknown key encodng in \[fields\] content"),
    (minimal(fields={"content": {"encoding": "klingon"}}), r"unknown encoding 'klingon'"),
    (minimal(fields={}), r"\[fields\] is empty"),
    (minimal(fields={"content": "ignore"}), r"every field is \"ignore\""),
    (minimal(batch={"chunk_size": 0}), r"chunk_size must be from 1 to 1,000,000, got 0"),
    (minimal(scheme={"verbatim_containment": 1.5}), r"verbatim_containment must be above 0 and at most 1, got 1.5"),
    (minimal(scheme={"rows_per_band": 0}), r"rows_per_band must be from 1 to 32, got 0"),
    (minimal(store={"mongo_uri": "http://x"}), r"must start with mongodb://"),
    (minimal(store={"database": "a.b$c d/e"}), r"\[store\] database 'a.b\$c d/e' is not a MongoDB database name: "
                                               r"it holds '/', '\.', ' ', '\$'"),
    (minimal(store={"database": ""}), r"\[store\] database is empty"),
    (minimal(store={"database": "a\x00b"}), r"\[store\] database .* holds NUL"),
    (minimal(store={"database": "d" * 64}), r"\[store\] database .* 64 bytes long; at most 63"),
    (minimal(store={"database": "数据" * 11}), r"66 bytes long; at most 63"),
    (minimal(fingerprint={"weighting": "bm25"}), r"\[fingerprint\] weighting must be \"tf\" .* or \"tfidf\""),
    (minimal(fingerprint={"length": "long"}), r"\[fingerprint\] length must be \"none\", \"normal\" .* \"minmax\""),
    (minimal(fingerprint={"noun_weight": 11}), r"\[fingerprint\] noun_weight must be a number from 0 to 10"),
    (minimal(fingerprint={"verb_weight": -1}), r"\[fingerprint\] verb_weight must be a number from 0 to 10"),
    (minimal(fingerprint={"marker_weight": float("nan")}), r"marker_weight must be a number from 0 to 10"),
    (minimal(fingerprint={"title_weight": "5"}), r"\[fingerprint\] title_weight must be a number, got '5'"),
    (minimal(fingerprint={"title_weight": 5}), r"title_field 'title' is not in \[fields\].*or set title_weight = 1"),
    (minimal(scheme={"filed": "created"}), r"\[scheme\] filed 'created' is not in \[fields\]"),
    (minimal(scheme={"days": -1}), r"\[scheme\] days must be from 0 to 36,500, got -1"),
    (minimal(watch={"changes": "kafka"}), r"\[watch\] changes 'kafka' is unknown; available: \"triggers\", \"binlog\""),
    (minimal(watch={"server_id": 2**32}), r"\[watch\] server_id must be from 0 to 4,294,967,295"),
    ({"fields": {"content": "long"}}, r"missing \[source\] section"),
    ({"source": {"url": "sqlite:///x.db"}, "fields": {"content": "long"}}, r"\[source\] table is required"),
    (minimal(source={"url": "sqlite:///x.db", "table": ""}), r"\[source\] table is empty: name the table"),
    (minimal(source={"url": "sqlite:///x.db", "table": "p", "id_column": ""}), r"\[source\] id_column is empty"),
])
def test_invalid_configuration_is_refused_with_what_to_fix(data, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(data, {})


@pytest.mark.parametrize("options, message", [
    ("badoption=1", r"Unknown option: badoption"),
    ("serverSelectionTimeoutMS=abc", r"serverselectiontimeoutms must be an integer or float"),
])
def test_a_mongodb_uri_option_pymongo_would_ignore_is_a_configuration_error(options, message):
    uri = f"mongodb://app:s3cret@127.0.0.1:1/?{options}"
    with pytest.raises(ConfigError, match=r"\[store\] mongo_uri \(or DEDUP_MONGO_URI\) "
                                          r"mongodb://app:\*\*\*@127.0.0.1:1/\?.*: " + message):
        parse_config(minimal(), {"DEDUP_MONGO_URI": uri})


def test_a_missing_file_says_how_to_start():
    with pytest.raises(ConfigError, match="does not exist; copy config/example.toml"):
        load_config("/nonexistent/dedup.toml", env={})


def test_invalid_toml_names_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[source\nurl=", encoding="utf-8")
    with pytest.raises(ConfigError, match="bad.toml is not valid TOML"):
        load_config(bad, env={})


@pytest.mark.parametrize("url, shown", [
    ("mysql+pymysql://app:s3cret@db:3306/p", "mysql+pymysql://app:***@db:3306/p"),
    ("mysql+pymysql://app:p@ss@db/p", "mysql+pymysql://app:***@db/p"),
    ("mongodb://u:pw@h1:1,h2:2/?authSource=admin", "mongodb://u:***@h1:1,h2:2/?authSource=admin"),
    ("mysql://db/p?user=a&password=zz&x=1", "mysql://db/p?user=a&password=***&x=1"),
    ("sqlite:///dedup-data/sample.sqlite", "sqlite:///dedup-data/sample.sqlite"),
])
def test_passwords_are_masked(url, shown):
    assert mask_url(url) == shown


# Passwords as people write them: / : # unescaped (SQLAlchemy reads them), @ and % escaped
# or not; pymongo refuses an unescaped / @ : % and the URL must still never show it.
@pytest.mark.parametrize("url, shown", [
    ("mysql+pymysql://slash:Pa/ss+w0rd@127.0.0.1:33061/p", "mysql+pymysql://slash:***@127.0.0.1:33061/p"),
    ("mysql+pymysql://slash:Pa/ss:w#0rd%40x%25y@h:1/p?charset=utf8mb4",
     "mysql+pymysql://slash:***@h:1/p?charset=utf8mb4"),
    ("mysql+pymysql://app:a@b/c:d%e#f@db/p", "mysql+pymysql://app:***@db/p"),
    ("mongodb://dedup:mongopw/123@h1:1,h2:2/?authSource=admin", "mongodb://dedup:***@h1:1,h2:2/?authSource=admin"),
    ("mongodb://dedup:mo/n@g:o%pw#1@h:27017/", "mongodb://dedup:***@h:27017/"),
    ("mongodb+srv://dedup:a/b@cluster.example.net/db", "mongodb+srv://dedup:***@cluster.example.net/db"),
])
def test_passwords_holding_slashes_and_other_url_characters_are_masked(url, shown):
    assert mask_url(url) == shown


def test_urls_quoted_in_a_message_are_masked():
    message = "cannot use 'mysql+pymysql://slash:Pa/ss@h/p' nor mongodb://d:x/y@m:1/ here"
    assert mask_url(message) == "cannot use 'mysql+pymysql://slash:***@h/p' nor mongodb://d:***@m:1/ here"


def test_masked_settings_hide_secrets_from_the_environment():
    config = load_config(EXAMPLE, env={"DEDUP_SQL_URL": "mysql+pymysql://a:topsecret@h/d",
                                       "DEDUP_MONGO_URI": "mongodb://a:topsecret@h/"})
    assert "topsecret" not in repr(config.masked())


def test_the_old_name_edits_is_read_as_slips_with_one_deprecation_line(caplog):
    config = parse_config(minimal(scheme={"edits": 1}), {}, "old.toml")
    assert shingle_scheme(config).slips == 1
    assert [r.getMessage() for r in caplog.records] == [
        "old.toml: [scheme] edits is now named slips; edits is still read, for now"]


def test_the_old_scheme_name_blocks_is_read_as_simhash_with_one_deprecation_line(caplog):
    config = parse_config(minimal(scheme={"name": "blocks"}), {}, "old.toml")
    assert config.scheme.name == "simhash" and not config.shingles
    assert [r.getMessage() for r in caplog.records] == [
        'old.toml: [scheme] name = "blocks" is now named "simhash"; "blocks" is still read, for now']


@pytest.mark.parametrize("old, new", [({"name": "blocks"}, {"name": "simhash"}), ({"edits": 1}, {"slips": 1})])
def test_a_config_with_the_old_names_gives_the_scheme_settings_of_the_new_names(old, new):
    old, new = (parse_config(minimal(scheme=names), {}) for names in (old, new))
    assert scheme_of(old).settings == scheme_of(new).settings


# The scheme's settings text is stored with every batch and hashed into every row's content
# hash: a new text would make every store refuse checks, and rewrite every row, until rebuilt.
# Changed deliberately once since the renames (issue 50, third round): the keys of short texts
# (ShingleScheme.short_bands, tiny_keys) changed every shingles row's keys, so the text names
# them and a store built before refuses `check`, `add` and `watch` ("made with other scheme
# settings … run `dedup-pipeline batch` …") until the next batch rebuilds it. And once more
# (issue 52): a short text's opening keys leave out the shingles inside its opening
# (`past_opening`), which made keys of hundreds of rows on hotline texts.
BEFORE_THE_RENAMES = {  # the texts of these configurations before the renames (and, for shingles, since)
    "shingles": "(SchemeConfig(name='shingles', blocks=4, key_blocks=1, size=2, key_size=3, keys=4, threshold=0.3, "
                "containment=0.7, verbatim=1.0, verbatim_containment=0.98, edits=1, numbers=2, submitter=(), "
                "filed='', days=30, bands=14, rows_per_band=4, corroborate=True), "
                "(Field(name='content', role='long', weight=None, encoding='utf-8'),), "
                "ShortTexts(short=128, short_bands=6, tiny=64, tiny_keys=8, opening=6, past_opening=True))",
    "simhash": "(FingerprintConfig(bits=64, k=3, punctuation='space', tokenizer='auto', weighting='tf', length='none', "
               "noun_weight=1.0, verb_weight=1.0, marker_weight=1.0, title_weight=1.0, title_field='title'), "
               "SchemeConfig(name='blocks', blocks=4, key_blocks=1, size=2, key_size=3, keys=4, threshold=0.3, "
               "containment=0.7, verbatim=1.0, verbatim_containment=0.98, edits=1, numbers=2, submitter=(), "
               "filed='', days=30, bands=14, rows_per_band=4, corroborate=True), "
               "(Field(name='content', role='long', weight=None, encoding='utf-8'),))",
}


@pytest.mark.parametrize("name", ["shingles", "simhash"])
def test_the_scheme_settings_keep_the_text_stores_were_built_with_before_the_renames(name):
    config = parse_config(minimal(scheme={"name": name, "slips": 1}), {})
    assert scheme_of(config).settings == BEFORE_THE_RENAMES[name]


def test_an_old_name_beside_its_new_name_is_refused():
    with pytest.raises(ConfigError, match=r"\[scheme\] sets both edits and slips: edits is the old name of slips"):
        parse_config(minimal(scheme={"edits": 1, "slips": 2}), {})


@pytest.fixture
def sqlite_table(tmp_path):
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE petition (id INTEGER PRIMARY KEY, title TEXT, content TEXT)"))
    return url


def test_a_table_missing_from_the_database_is_named(sqlite_table):
    config = parse_config(minimal(source={"url": sqlite_table, "table": "petitions"}), {})
    with pytest.raises(ConfigError, match="table 'petitions' does not exist"):
        SqlSource(config)


def test_a_column_missing_from_the_table_is_named_with_the_columns_it_has(sqlite_table):
    config = parse_config(minimal(source={"url": sqlite_table, "table": "petition"},
                                  fields={"title": "short", "body": "long"}), {})
    with pytest.raises(ConfigError, match=r"column body not in table 'petition' \(it has: id, title, content\)"):
        SqlSource(config)


def test_an_sqlite_url_to_a_missing_file_is_named_and_creates_no_file(tmp_path):
    config = parse_config(minimal(source={"url": f"sqlite:///{tmp_path}/typo.db", "table": "petition"}), {})
    with pytest.raises(ConfigError, match=f"the SQLite database file {tmp_path}/typo.db does not exist"):
        SqlSource(config)
    assert not (tmp_path / "typo.db").exists()


def test_a_source_url_from_the_environment_is_never_filled_with_the_sample(tmp_path):
    config = load_config(env={"DEDUP_SQL_URL": f"sqlite:///{tmp_path}/typo.db"})
    assert not config.source.sample
    with pytest.raises(ConfigError, match="does not exist"):
        SqlSource(config)
    assert not (tmp_path / "typo.db").exists()
