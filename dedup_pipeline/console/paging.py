"""Long lists a page at a time (`?page=N`): the queue, and the rule's pairs and groups. One
rule for all of them: PER_PAGE items a page; a page number past the last is the last, and
anything that is no page number the first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

PER_PAGE = 50  # items a page lists

T = TypeVar("T")


class Page(NamedTuple):
    """A page of a list: its number (from 1), how many pages, how many items in all."""

    number: int
    pages: int
    total: int

    @property
    def first(self) -> int:
        """The place in the list of the page's first item (from 1), to number the items by."""
        return (self.number - 1) * PER_PAGE + 1


def paged(items: Sequence[T], asked: str | None) -> tuple[Page, Sequence[T]]:
    """The page asked for (`asked`, the request's `page`) and its items."""
    pages = max(1, -(-len(items) // PER_PAGE))
    number = min(pages, max(1, int(asked))) if asked and re.fullmatch(r"[0-9]{1,9}", asked) else 1
    page = Page(number, pages, len(items))
    return page, items[page.first - 1:page.first - 1 + PER_PAGE]
