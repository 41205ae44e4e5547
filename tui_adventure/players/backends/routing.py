"""Request fields a backend sends unless a model's entry gives its own ``extra_body``.

Data of its own so that the backends' table (``__init__``) and the module that sends
the requests both read it without importing each other.
"""

from __future__ import annotations

import copy

DEFAULT_BODIES: dict[str, dict] = {
    "openrouter": {"provider": {"quantizations": ["fp8"]}},   # clemcore's default routing
}


def default_body(backend: str) -> dict | None:
    """A copy: the table is shared by every request."""
    return copy.deepcopy(DEFAULT_BODIES.get(backend))
