"""Shared fixtures: a real MongoDB wire-protocol server (embedded SecantusDB)."""

import uuid

import pymongo
import pytest

from dedup_pipeline.embedded import EmbeddedMongo


@pytest.fixture(scope="session")
def mongo_uri(tmp_path_factory):
    """URI of an embedded MongoDB on a free loopback port, running for the whole session."""
    with EmbeddedMongo().start(tmp_path_factory.mktemp("mongo")) as mongo:
        yield mongo.uri


@pytest.fixture(scope="session")
def mongo_client(mongo_uri):
    client = pymongo.MongoClient(mongo_uri)
    yield client
    client.close()


@pytest.fixture
def mongo_db(mongo_client):
    """A fresh, empty database for one test, dropped afterwards."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    yield mongo_client[name]
    mongo_client.drop_database(name)
