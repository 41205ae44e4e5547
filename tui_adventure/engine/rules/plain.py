"""Rules as plain Python: ``TUI_ADVENTURE_PLAIN_RULES=1`` runs every rule as closures (``Compiler._closure``,
``_effect`` and ``plain_attempt`` below), no generated code. The outcomes are the same, only slower: for
reading a rule's behaviour in a debugger (tests/engine/test_plain_rules.py plays every shipped world both ways).
"""

from __future__ import annotations

import os
from typing import Callable

from ..text import Later

PLAIN_RULES = os.environ.get("TUI_ADVENTURE_PLAIN_RULES", "") == "1"


def plain_attempt(params: tuple) -> Callable:
    """``Compiler.attempt``'s step as plain Python (``PLAIN_RULES``): the memo, the player's room, the
    checks in order, then the effects through ``State.advance``; the same outcomes as the generated one."""
    def attempt_later(action, st, env):
        key = (action.key_head, *[env.get(p) for p in params], env.get("prep"))
        cache = st.cache
        hit = cache.get(key)
        if hit is not None:
            return (st if hit.next is None else hit.next), hit, hit.fail
        env["here"] = action.where(st)
        for i, (cond, _render, _fail_type, _names) in enumerate(action.checks):
            if not cond(st, env):
                return action._failed(st, env, key, cache, i)
        if action.effect is None:
            text = Later(action.success, st, env)
            action._remember(cache, key, text)
            return st, text, None
        return action._slow(st, env, key, cache)
    return attempt_later
