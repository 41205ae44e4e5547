"""Observations compared modulo upstream's set order.

Upstream lists things by iterating a Python set, so "a X, a Y and a Z" and
the order of state sentences change from run to run. The canonical form
sorts the items of each enumerated list, then the sentences.
"""

from __future__ import annotations

import re

_LIST_RE = re.compile(r"((?:an? [^,.]+?, )*an? [^,.]+? and an? [^,.]+?)(?= here\.|\.| in the | on the )")
_SENT_RE = re.compile(r"(?<=[.!?])\s+")


def _sort_list(m: re.Match) -> str:
    text = m.group(1)
    head, last = text.rsplit(" and ", 1)
    items = head.split(", ") + [last]
    items.sort()
    return ", ".join(items[:-1]) + " and " + items[-1]


def canonical(text: str) -> str:
    text = _LIST_RE.sub(_sort_list, text.strip())
    sentences = [s for s in _SENT_RE.split(text) if s]
    return " ".join(sorted(sentences))
