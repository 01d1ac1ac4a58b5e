"""Block keys (seed 003 §2.1, seeds 000/001): split the fingerprint into `blocks` pieces.

Pigeonhole: two fingerprints within Hamming distance k differ in at most k bits, so with
more than k blocks at least one block holds none of those bits and is equal in both. A
fingerprint filed under each of its block values is therefore found by any fingerprint
within k that looks up its own block values: no pair within k is ever missed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class SchemeError(ValueError):
    """A block scheme that cannot guarantee finding every pair within k."""


@dataclass(frozen=True)
class BlockScheme:
    """`blocks` contiguous pieces of a `bits`-bit fingerprint; similar means distance <= k."""

    bits: int = 64
    k: int = 3
    blocks: int = 4

    def __post_init__(self) -> None:
        if self.k < 0:
            raise SchemeError(f"k ({self.k}) must be 0 or more")
        if self.blocks <= self.k:
            raise SchemeError(
                f"blocks ({self.blocks}) must be greater than k ({self.k}): with {self.blocks} "
                f"blocks two fingerprints {self.k} bits apart can differ in every block, and "
                f"that pair would be missed; use blocks = {self.k + 1} or more")
        if self.blocks > self.bits:
            raise SchemeError(f"blocks ({self.blocks}) cannot exceed bits ({self.bits})")

    @property
    def widths(self) -> list[int]:
        """Bits per block, as even as possible (64 bits in 4 blocks: 16 each)."""
        base, extra = divmod(self.bits, self.blocks)
        return [base + (i < extra) for i in range(self.blocks)]

    def keys(self, fingerprint: int) -> list[tuple[int, int]]:
        """(block index, block value) for every block, lowest bits first."""
        out, shift = [], 0
        for index, width in enumerate(self.widths):
            out.append((index, fingerprint >> shift & ((1 << width) - 1)))
            shift += width
        return out

    def keys_many(self, fingerprints: np.ndarray) -> np.ndarray:
        """Block values of many fingerprints: an array of shape (n, blocks)."""
        out = np.empty((len(fingerprints), self.blocks), dtype=np.uint64)
        shift = 0
        for index, width in enumerate(self.widths):
            mask = np.uint64((1 << width) - 1)
            out[:, index] = (fingerprints >> np.uint64(shift)) & mask
            shift += width
        return out

    def similar(self, a: int, b: int) -> bool:
        return (a ^ b).bit_count() <= self.k
