"""One handle a process holds on the configured table (`Pipeline`): its configuration, its
source database and its store, each opened when first used and kept until `close`. A
long-lived process (the console, `watch`) opens them once, not once a call; every library
function takes a Pipeline, or a Config for one opened for that call alone (`holding`)."""

from __future__ import annotations

import threading
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Union

from .errors import StoreError

if TYPE_CHECKING:
    from .config import Config
    from .jobs.incremental import Incremental
    from .sql.source import SqlSource
    from .store.protocol import Store


class Pipeline:
    """The configured table's source and store, opened once (`with Pipeline(config) as pipe:`).
    Thread-safe: the console's server is threaded (SqlSource's engine pools, pymongo's client
    is shared by threads)."""

    def __init__(self, config: Config):
        self.config = config
        self._lock = threading.RLock()
        self._source: SqlSource | None = None
        self._store: Store | None = None
        self._store_stack = ExitStack()

    @property
    def source(self) -> SqlSource:
        """The table, read through SQLAlchemy: reflected once, its engine's connections pooled."""
        with self._lock:
            if self._source is None:
                from .sql.source import SqlSource

                self._source = SqlSource(self.config)
            return self._source

    @property
    def store(self) -> Store:
        """The configured store (store.index.open_store), following its live batch as batches switch."""
        with self._lock:
            if self._store is None:
                from .store.index import open_store

                self._store = self._store_stack.enter_context(open_store(self.config))
            return self._store

    def incremental(self, decided: bool = True) -> Incremental:
        """An index over the held store for one call's checks (jobs.incremental.Incremental),
        obeying the reviewers' decisions in the source when `decided`."""
        from .jobs.incremental import Incremental
        from .sql import decisions

        index = Incremental(self.store, self.config)
        if decided:
            index.verdicts = decisions.reader(self.source)
        return index

    def forget_store(self) -> None:
        """Close the store after it failed, so that the next use opens it afresh (an embedded
        server started again, a MongoDB server back): a long-lived holder heals by itself."""
        with self._lock:
            stack, self._store_stack, self._store = self._store_stack, ExitStack(), None
        try:
            stack.close()
        except Exception:  # closing what already failed: nothing more to say than the failure
            pass

    def close(self) -> None:
        with self._lock:
            source, self._source = self._source, None
            self._store_stack.close()
            self._store = None
        if source is not None:
            source.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


Using = Union["Config", Pipeline]  # what a library function is given: a handle, or a Config for one


@contextmanager
def holding(using: Using) -> Iterator[Pipeline]:
    """The Pipeline `using` is (its store forgotten when the call fails on it), or one opened
    on the Config `using` for this call and closed after."""
    if not isinstance(using, Pipeline):
        with Pipeline(using) as pipe:
            yield pipe
        return
    try:
        yield using
    except StoreError:
        using.forget_store()
        raise


def config_of(using: Using) -> Any:
    """The configuration of a Pipeline or a Config."""
    return using.config if isinstance(using, Pipeline) else using


@contextmanager
def sourced(using: Using) -> Iterator[SqlSource]:
    """The source of the Pipeline `using` is, or of one opened for this call (`holding`)."""
    with holding(using) as pipe:
        yield pipe.source


@contextmanager
def stored(using: Using) -> Iterator[Store]:
    """The store of the Pipeline `using` is, or of one opened for this call (`holding`)."""
    with holding(using) as pipe:
        yield pipe.store
