"""Block keys (seed 003 §2.1, seeds 000/001; Manku et al. 2007): where a fingerprint is
filed so that every fingerprint within Hamming distance k is found by looking it up.

Pigeonhole: split the fingerprint into `blocks` pieces. Two fingerprints within distance k
differ in at most k bits, which touch at most k blocks, so at least `blocks - k` blocks are
equal in both. A *table* keys each fingerprint by `key_blocks` of its blocks; with one
table for every choice of `key_blocks <= blocks - k` blocks, some table gives the two equal
keys. The paper's scheme is 4 blocks of 16 bits, one block per key: 4 tables. Five blocks
keyed two at a time (10 tables, ~26-bit keys) files each fingerprint more often but
finds far fewer candidates per key.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
import numpy as np


class SchemeError(ValueError):
    """A block scheme that cannot guarantee finding every pair within k."""


@dataclass(frozen=True)
class BlockScheme:
    """`blocks` pieces of a `bits`-bit fingerprint, keyed `key_blocks` at a time."""

    bits: int = 64
    k: int = 3
    blocks: int = 4
    key_blocks: int = 1

    def __post_init__(self) -> None:
        if self.k < 0:
            raise SchemeError(f"k ({self.k}) must be 0 or more")
        if self.key_blocks < 1:
            raise SchemeError(f"key_blocks ({self.key_blocks}) must be 1 or more")
        if self.blocks - self.key_blocks < self.k:
            raise SchemeError(
                f"blocks ({self.blocks}) must be greater than k ({self.k}) by at least key_blocks "
                f"({self.key_blocks}): otherwise two fingerprints {self.k} bits apart can differ in "
                f"every key and that pair would be missed; use blocks = {self.k + self.key_blocks} "
                f"or more")
        if self.blocks > self.bits:
            raise SchemeError(f"blocks ({self.blocks}) cannot exceed bits ({self.bits})")

    @cached_property
    def widths(self) -> list[int]:
        """Bits per block, as even as possible (64 bits in 4 blocks: 16 each)."""
        base, extra = divmod(self.bits, self.blocks)
        return [base + (i < extra) for i in range(self.blocks)]

    @cached_property
    def shifts(self) -> list[int]:
        """Where each block starts, lowest bits first."""
        return [sum(self.widths[:i]) for i in range(self.blocks)]

    @cached_property
    def tables(self) -> list[tuple[int, ...]]:
        """The blocks each table keys on."""
        return list(combinations(range(self.blocks), self.key_blocks))

    def block(self, fingerprint: int, index: int) -> int:
        return fingerprint >> self.shifts[index] & ((1 << self.widths[index]) - 1)

    def keys(self, fingerprint: int) -> list[tuple[int, int]]:
        """(table index, key) for every table: the key is its blocks' bits side by side."""
        out = []
        for t, table in enumerate(self.tables):
            key = 0
            for index in table:
                key = key << self.widths[index] | self.block(fingerprint, index)
            out.append((t, key))
        return out

    def keys_many(self, fingerprints: np.ndarray) -> np.ndarray:
        """Keys of many fingerprints: an array of shape (n, tables), as `keys` gives them."""
        out = np.zeros((len(fingerprints), len(self.tables)), dtype=np.uint64)
        for t, table in enumerate(self.tables):
            for index in table:
                out[:, t] = (out[:, t] << np.uint64(self.widths[index])) | self._block_many(fingerprints, index)
        return out

    def _block_many(self, fingerprints: np.ndarray, index: int) -> np.ndarray:
        mask = np.uint64((1 << self.widths[index]) - 1)
        return (fingerprints >> np.uint64(self.shifts[index])) & mask

    def permute(self, fingerprints: np.ndarray, t: int) -> np.ndarray:
        """Fingerprints with table t's blocks moved to the top bits, the rest below in order:
        sorting these groups equal keys together, and the distance between two is unchanged."""
        out = np.zeros(len(fingerprints), dtype=np.uint64)
        for index in self._order(t):
            out = (out << np.uint64(self.widths[index])) | self._block_many(fingerprints, index)
        return out

    def unpermute(self, permuted: np.ndarray, t: int) -> np.ndarray:
        """The inverse of `permute`."""
        out = np.zeros(len(permuted), dtype=np.uint64)
        shift = 0
        for index in reversed(self._order(t)):
            mask = np.uint64((1 << self.widths[index]) - 1)
            out |= ((permuted >> np.uint64(shift)) & mask) << np.uint64(self.shifts[index])
            shift += self.widths[index]
        return out

    def _order(self, t: int) -> list[int]:
        table = self.tables[t]
        return list(table) + [i for i in range(self.blocks) if i not in table]

    def key_bits(self, t: int) -> int:
        return sum(self.widths[i] for i in self.tables[t])

    def first_shared_table(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """For pairs of fingerprints, the first table whose key they share (-1 if none)."""
        equal = [self._block_many(a, i) == self._block_many(b, i) for i in range(self.blocks)]
        first = np.full(len(a), -1, dtype=np.int64)
        for t in reversed(range(len(self.tables))):
            first[np.logical_and.reduce([equal[i] for i in self.tables[t]])] = t
        return first

    def similar(self, a: int, b: int) -> bool:
        return (a ^ b).bit_count() <= self.k

    def distance(self, a: int, b: int) -> int | None:
        """The Hamming distance of a and b when they are similar, else None."""
        d = (a ^ b).bit_count()
        return d if d <= self.k else None
