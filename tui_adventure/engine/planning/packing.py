"""A search's states packed as integers: the facts no action changes are shared, the rest are bits."""

from __future__ import annotations

from ..facts import State
from ..world import World


class Packing:
    """States as integers: one bit per fact that some action may change; the rest is shared.

    A fact's bit is handed out the first time it is seen, so the integer grows
    only with the facts a search actually meets. A state is rebuilt from its
    bits by copying the indexes of the unchanging facts and adding the few
    changing ones, much cheaper than indexing every fact again.
    """

    def __init__(self, world: World, start: State) -> None:
        changing = changed_predicates(world)
        self.static = frozenset(f for f in start.facts if changing is not None and f[0] not in changing)
        base = State.of(self.static)
        self._by1, self._by2 = base.by1, base.by2
        self.index: dict = {}
        self.facts: list = []

    def _bit(self, fact) -> int:
        i = self.index.get(fact)
        if i is None:
            i = self.index[fact] = len(self.facts)
            self.facts.append(fact)
        return 1 << i

    def bits(self, st: State) -> int:
        out = 0
        static = self.static
        for f in st.facts:
            if f not in static:
                out |= self._bit(f)
        return out

    def child(self, bits: int, parent: State, st: State) -> int:
        """The bits of ``st``, made from its parent's and the facts its move added and removed."""
        if st.delta is None or st is parent:
            return self.bits(st)
        adds, dels = st.delta
        return self.after(bits, adds, dels)

    def after(self, bits: int, adds, dels) -> int:
        """``child``, from what a move adds and deletes (``Planner.changes``) rather than its state."""
        for f in adds:
            bits |= self._bit(f)
        for f in dels:
            if f in self.static:   # the effects were misread: an "unchanging" fact changed
                raise AssertionError(f"planner: {f} changed, but no effect names {f[0]}")
            bits &= ~self._bit(f)
        return bits

    def state(self, bits: int) -> State:
        facts = self.facts
        changing: list[tuple] = []
        for i, byte in enumerate(bits.to_bytes((bits.bit_length() + 7) // 8, "little")):
            if byte:
                base = i * 8
                changing.extend(facts[base + j] for j in _BITS[byte])
        # the changing facts grouped by index key first, so each entry is extended once
        g1: dict = {}
        g2: dict = {}
        for f in changing:
            n = len(f)
            if n < 2:
                continue
            if n == 2:
                g2.setdefault((f[0], ""), []).append(f[1])
            g1.setdefault((f[0], f[1]), []).append(f[2:])
            if n >= 3:
                g2.setdefault((f[0], f[2]), []).append(f[1])
        by1, by2 = self._by1.copy(), self._by2.copy()
        for index, groups in ((by1, g1), (by2, g2)):
            for k, v in groups.items():
                old = index.get(k)
                index[k] = old.union(v) if old else frozenset(v)
        return State(self.static.union(changing), by1, by2)


_BITS = [tuple(j for j in range(8) if b >> j & 1) for b in range(256)]   # the set bits of each byte


def changed_predicates(world: World) -> frozenset[str] | None:
    """Predicates some action of the world (ruleset or its own) adds or deletes: the rest never change
    (None: the effects cannot be read, so any may)."""
    from ..rules import Add, Delete, LogicError, parse_effects, walk_all

    out: set[str] = set()
    for action in world.actions:
        for text in action.spec.effects:
            try:
                nodes = parse_effects(str(text))
            except LogicError:
                return None
            out.update(n.atom.pred for n, _ in walk_all(nodes) if isinstance(n, (Add, Delete)))
    if world.scene is not None:
        out |= world.scene.changed_predicates()
    return frozenset(out)
