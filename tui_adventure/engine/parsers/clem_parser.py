"""Command parser reproducing the clembench adventuregame v2.1 parsing phase.

Upstream builds a lark (Earley, dynamic lexer) grammar from the action
definitions' ``lark`` snippets and then runs a fixed sequence of checks.  Lark
is far too slow for the engine (about a millisecond per command), so this is a
hand-written word-level parser that reproduces lark's choice of parse:

* The input is accepted iff it is letters and whitespace starting with a letter
  (every command also matches the fallback rule ``unknown: (WORD WS*)+``).
* Among the derivations of the action rule, lark keeps the one with the highest
  sum of terminal priorities (verb, DET, ADJ and PREP tokens weigh 1, WORD,
  WS, "back" and "to" weigh 0), then the one of the lowest expansion order of
  the action rule (a form with "back"/a preposition beats one without).
* Exact ties after that (odd inputs such as "put x y z") are broken by lark by
  the order in which its Earley chart inserted the alternatives.  We use an
  approximation: earlier components take as many words as possible.  It
  matches lark on the common case "put book side table" -> ("book side",
  "table"); :meth:`ClemParser.candidates` lists every tied reading.
* The lexer matches each keyword terminal once per position with the first
  regex alternative, so "out of" (single space) always wins over "out".

The checks after the parse, their order and texts follow upstream's
``parse_action_input``; see :meth:`ClemParser.parse`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Container, Iterable, Mapping

__all__ = ["ParsedAction", "ParseFailure", "ClemParser"]

_WS = " \t\f\r\n"  # lark's common.WS; \v is not whitespace for the grammar
MAX_WORDS = 60  # longer input is not enumerated (see ClemParser.parse)
_ACCEPT = re.compile(r"[a-z]+(?:[ \t\f\r\n]+[a-z]+)*[ \t\f\r\n]*\Z")
_SPLIT = re.compile(r"[ \t\f\r\n]+")
_PLAIN = re.compile(r"[a-z]+(?: [a-z]+)*\Z")   # words and single spaces: most commands
_QUOTED = re.compile(r'"([^"]*)"')
_ONE_THING = frozenset({"thing", "go", "take"})   # shapes whose plain reading is one thing
# Grammar shape of each action type in basic_actions_v2 (the verb synonyms are
# read from the data; the shapes are what the lark snippets say).
_SHAPES = {"open": "thing", "close": "thing", "examine": "thing",
           "take": "take", "put": "put", "go": "go", "done": "done"}


@dataclass(frozen=True)
class ParsedAction:
    """A command that passed the parsing phase, as upstream hands it on.

    ``arg1``/``arg2`` are the surface names (repr_str); ``arg1_type`` and
    ``arg2_type`` the type names upstream converts them to.  Upstream's take
    rule allows more "PREP thing" groups; their surface strings end up in
    ``args`` (all arguments in order) and are never checked or used upstream.
    """
    verb: str
    arg1: str | None = None
    arg2: str | None = None
    prep: str | None = None
    arg1_type: str | None = None
    arg2_type: str | None = None
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParseFailure:
    """A failed command: upstream's feedback text and its ``action_fail`` info.

    ``phase`` is "parsing" except for "take X from inventory" with X held,
    which upstream reports from this same code as phase "resolution".
    For lark_exception upstream logs lark's exception text as ``arg``; we log
    the cleaned input instead (lark's text is not worth reproducing).
    """
    fail_type: str
    message: str
    arg: str | None
    phase: str = "parsing"


_STRUCTURES: dict[tuple, dict[str, tuple]] = {}   # a vocabulary -> its readings of texts (see _structures)
VOCABULARIES_LIMIT = 64


def _structures(vocabulary: tuple) -> dict[str, tuple]:
    """The readings of commands (``ClemParser._structure``) shared by every parser of this vocabulary.

    A reading is a function of the text and the words alone: the verbs (each word's action), the
    adjectives, determiners and prepositions. Names, rooms and what is held are checked after it,
    per world (``parse_fields``). Each clembench instance builds a world and its parser, and an
    episode's commands are mostly ones an earlier world of the same words has read ("go kitchen"):
    the packaged instances have one vocabulary and 55 texts among their 1,968 optimal commands."""
    cache = _STRUCTURES.get(vocabulary)
    if cache is None:
        if len(_STRUCTURES) >= VOCABULARIES_LIMIT:   # bounded: each cache is bounded too (parse_fields)
            _STRUCTURES.clear()
        cache = _STRUCTURES[vocabulary] = {}
    return cache


class ClemParser:
    """Parser for one adventure's vocabulary (build once, call :meth:`parse`)."""

    def __init__(self, entity_names: dict[str, str], room_names: dict[str, str],
                 verbs: Mapping[str, Iterable[str]], adjectives: Iterable[str],
                 preps: Iterable[str] = ("on", "in", "from", "out of", "out", "into", "up"),
                 dets: Iterable[str] = ("the", "a", "an")):
        """``entity_names``/``room_names``: repr_str -> type name.
        ``verbs``: action type -> its verb words (e.g. "take" -> take, grab,
        pick, get).  ``adjectives``: every ``possible_adjs`` word."""
        self.names = {**entity_names, **room_names}
        self.entity_types = set(entity_names.values())
        self.room_types = set(room_names.values())
        self.type_repr = {t: s for s, t in self.names.items()}
        self.action_types = frozenset(verbs)
        self.verb_of = {}
        for action, words in verbs.items():
            if action not in _SHAPES:
                raise ValueError(f"no grammar shape known for action {action!r}")
            for w in words:
                self.verb_of[w] = action
        self.adjs = frozenset(adjectives)
        self.dets = frozenset(dets)
        self.preps = frozenset(p for p in preps if " " not in p)
        # two-word prepositions ("out of") as first word -> second word
        self.prep2 = {p.split(" ")[0]: p.split(" ")[1] for p in preps if " " in p}
        self._inert = self.adjs | self.dets | self.preps | set(self.prep2) | {"to", "back"}   # see _structure
        self._cache = _structures((tuple(sorted(self.verb_of.items())), self.adjs, self.dets, self.preps,
                                   tuple(sorted(self.prep2.items()))))

    @classmethod
    def from_definitions(cls, actions: list[dict], entities: list[dict],
                         rooms: list[dict], grammar_core: dict) -> "ClemParser":
        """Build from upstream's definition files (already json-loaded)."""
        verbs = {}
        for a in actions:
            line = [ln for ln in a["lark"].splitlines() if ln.split(":")[0].split(".")[0].isupper()][0]
            verbs[a["type_name"]] = _QUOTED.findall(line)
        foot = {ln.split(":")[0].split(".")[0]: _QUOTED.findall(ln)
                for ln in grammar_core["grammar_foot"].splitlines()}
        adjs = {a for e in entities for a in e.get("possible_adjs", ())}
        return cls({e["repr_str"]: e["type_name"] for e in entities},
                   {r["repr_str"]: r["type_name"] for r in rooms},
                   verbs, adjs, foot["PREP"], foot["DET"])

    # ------------------------------------------------------------------ parse
    def parse(self, text: str, current_room_type: str,
              held_types: Container[str] = ()) -> ParsedAction | ParseFailure:
        """Run upstream's parsing phase on the command text.

        ``text`` is what the game master passes (text after ">", first line,
        stripped).  ``held_types``: type names of the inventory's contents.
        """
        got = self.parse_fields(text, current_room_type, held_types)
        return got if isinstance(got, ParseFailure) else ParsedAction(*got)

    def parse_fields(self, text: str, current_room_type: str,
                     held_types: Container[str] = ()) -> tuple | ParseFailure:
        """As ``parse``, a success given as the tuple of ``ParsedAction``'s fields: a game's step
        needs no frozen dataclass, whose every field is set through ``object.__setattr__``."""
        if text.endswith((".", "!")):   # upstream: strip, then lower
            text = text[:-1]
        text = text.lower()
        parsed = self._cache.get(text)
        if parsed is None and len(text) > 2 * MAX_WORDS and len(text.split()) > MAX_WORDS:
            # Readings multiply with length; no command has this many words. Answer as the
            # fallback rule would (first word as the verb) instead of enumerating them all.
            first = text.split(None, 1)[0] if text.strip() else ""
            parsed = ("unknown", first) if _ACCEPT.match(text) else ("error",)
        if parsed is None:
            parsed = self._structure(text)
            if len(text) <= 200:  # long input is rare and would bloat the cache
                if len(self._cache) > 8192:
                    self._cache.clear()
                self._cache[text] = parsed
        kind = parsed[0]
        if kind == "error":
            return ParseFailure("lark_exception", "I don't know what you mean.", text)
        if kind == "unknown":
            word = parsed[1]
            if word in self.action_types:
                return ParseFailure("malformed_command", "I don't know what you mean.",
                                    str({"type": "unknown", "arg1": word}))
            return ParseFailure("undefined_action_verb",
                                f"I don't know how to interpret this '{word}' action.", word)
        verb, args, prep = parsed[1], parsed[2], parsed[3]
        if verb == "done":
            return ("done", None, None, prep, None, None, ())
        arg1 = args[0]
        t1 = self.names.get(arg1)
        if t1 is None:
            return ParseFailure("undefined_repr_str", f"I don't know what '{arg1}' means.", arg1)
        if t1 not in self.entity_types and t1 in self.room_types:
            if verb in ("take", "close"):
                return ParseFailure("manipulating_room", f"You can't {verb} the '{t1}'.", t1)
            if verb == "put":
                return ParseFailure("manipulating_room", f"You can't put the '{t1}' anywhere.", t1)
            if verb == "open":
                return ParseFailure("manipulating_room", f"You don't need to open the '{t1}'.", t1)
        arg2 = t2 = None
        if len(args) > 1:
            arg2 = args[1]
            if verb == "take" and arg2 == "inventory":
                if t1 in held_types:
                    return ParseFailure("taking_from_inventory",
                                        f"The {self.type_repr[t1]} is already in your inventory.",
                                        t1, phase="resolution")
                return ParseFailure("taking_from_inventory",
                                    "You don't need to take things from your inventory.", arg2)
            t2 = self.names.get(arg2)
            if t2 is None:
                return ParseFailure("undefined_repr_str", f"I don't know what '{arg2}' means.", arg2)
            # upstream compares the room *type* with the current room's
            # *surface* name, so "living room" never matches
            if t2 in self.room_types and t2 != self.type_repr.get(current_room_type):
                return ParseFailure("other_room_argument", f"You are not in a {t2}.", t2)
        return (verb, arg1, arg2, prep, t1, t2, args)

    def candidates(self, text: str) -> list[tuple[str, tuple[str, ...], str | None]]:
        """All best-ranked readings (verb, args, prep) of a cleaned command.

        More than one means lark breaks a tie by chart order, which
        :meth:`parse` only approximates.  Empty if only ``unknown`` parses.
        """
        toks = self._tokens(text)
        if toks is None:
            return []
        ranked = self._derivations(*toks)
        if not ranked:
            return []
        top = max(r[0] for r in ranked)
        return sorted({r[2] for r in ranked if r[0] == top}, key=repr)

    # --------------------------------------------------------------- internals
    def _tokens(self, text: str):
        if _PLAIN.match(text):   # what the general case below gives for it, without three regex passes
            words = text.split(" ")
            return words, [" "] * (len(words) - 1), False
        if not _ACCEPT.match(text):
            return None
        words = _SPLIT.split(text.rstrip(_WS))
        seps = _SPLIT.findall(text.rstrip(_WS))
        return words, seps, len(text) > len(text.rstrip(_WS))

    def _structure(self, text: str) -> tuple:
        if _PLAIN.match(text):
            # "take pillow", "go living room": a verb of one thing and plain words (no DET, ADJ,
            # PREP, "to" or "back") have one reading, the words after the verb as the thing's
            # one- or two-word name; what _derivations finds for them, without its tables
            w = text.split(" ")
            action = self.verb_of.get(w[0])
            if action is not None and len(w) > 1 and _SHAPES[action] in _ONE_THING \
                    and self._inert.isdisjoint(w[1:]):
                return ("ok", action, (" ".join(w[1:]),), None) if len(w) <= 3 else ("unknown", w[0])
        toks = self._tokens(text)
        if toks is None:
            return ("error",)
        ranked = self._derivations(*toks)
        if not ranked:
            return ("unknown", toks[0][0])
        return ("ok",) + max(ranked, key=lambda r: (r[0], r[1]))[2]

    def _derivations(self, w: list[str], seps: list[str], trail: bool) -> list:
        """Every derivation as ((priority, -rule order), tie key, (verb, args, prep))."""
        n = len(w)
        action = self.verb_of.get(w[0])
        if action is None:
            return []
        shape = _SHAPES[action]
        if shape == "done":
            return [((1, 0), (), ("done", (), None))] if n == 1 else []
        if n == 1 and not trail:
            return []   # a verb needs whitespace after it
        out: list[tuple] = []
        thing = self._thing_table(w)
        if shape == "thing":
            t = thing.get((1, n))
            if t:
                out.append(((1 + t[0], 0), (), (action, (t[1],), None)))
        elif shape == "go":
            b = 1
            while True:
                j = b
                while True:
                    t = thing.get((j, n))
                    if t:
                        order = (0 if j > b else 1) if b > 1 else (2 if j > b else 3)
                        out.append(((1 + t[0], -order), (b, j), (action, (t[1],), None)))
                    if j < n - 1 and w[j] == "to":
                        j += 1
                    else:
                        break
                if b < n - 1 and w[b] == "back":
                    b += 1
                else:
                    break
        elif shape == "put":
            for k in range(2, n):
                t1 = thing.get((1, k))
                if not t1:
                    continue
                b = k
                preps: list[str]
                while True:
                    q, preps = b, []
                    while True:
                        t2 = thing.get((q, n))
                        if t2:
                            order = (0 if preps else 1) if b > k else (2 if preps else 3)
                            out.append(((1 + t1[0] + len(preps) + t2[0], -order), (k, b, q),
                                        (action, (t1[1], t2[1]), preps[-1] if preps else None)))
                        p = self._prep_at(w, seps, trail, q)
                        if not p:
                            break
                        preps.append(p[1])
                        q = p[0]
                    if b < n - 1 and w[b] == "back":
                        b += 1
                    else:
                        break
        else:  # take: TAKE PREP* thing (PREP thing)*
            groups = self._groups(w, seps, trail, thing, n)
            q, preps = 1, []
            while True:
                for k in range(q + 1, n + 1):
                    t1 = thing.get((q, k))
                    if not t1:
                        continue
                    for score, key, args, last in groups.get(k, ()):
                        order = (0 if args else 1) if preps else (2 if args else 3)
                        prep = last or (preps[-1] if preps else None)
                        out.append(((1 + len(preps) + t1[0] + score, -order), (q, k) + key,
                                    (action, (t1[1],) + args, prep)))
                p = self._prep_at(w, seps, trail, q)
                if not p:
                    break
                preps.append(p[1])
                q = p[0]
        return out

    def _groups(self, w, seps, trail, thing, n) -> dict:
        """For each start i: readings of w[i:] as (PREP thing)*, as
        (priority, tie key, args, last prep); filled right to left."""
        res: dict[int, list] = {n: [(0, (), (), None)]}
        for i in range(n - 1, 0, -1):
            p = self._prep_at(w, seps, trail, i)
            if not p:
                continue
            acc = []
            for k in range(p[0] + 1, n + 1):
                t = thing.get((p[0], k))
                if t:
                    for score, key, args, last in res.get(k, ()):
                        acc.append((1 + t[0] + score, (k,) + key, (t[1],) + args, last or p[1]))
            if acc:   # keep the best-scoring readings only, one per outcome
                top = max(a[0] for a in acc)
                best: dict = {}
                for a in acc:
                    if a[0] == top and (a[2:] not in best or best[a[2:]][1] < a[1]):
                        best[a[2:]] = a
                res[i] = list(best.values())
        return res

    def _prep_at(self, w, seps, trail, i):
        """The PREP token at word i as (next word index, prep), or None.

        Like lark's lexer, only the first matching alternative counts, so
        "out of" hides "out"; a keyword token needs whitespace after it."""
        n = len(w)
        if i >= n or (i == n - 1 and not trail):
            return None
        second = self.prep2.get(w[i])
        if second and i + 1 < n and seps[i] == " " and w[i + 1] == second \
                and (i + 1 < n - 1 or trail):
            return i + 2, f"{w[i]} {second}"
        if w[i] in self.preps:
            return i + 1, w[i]
        return None

    def _thing_table(self, w: list[str]) -> dict:
        """(i, j) -> (priority, surface name) of the best ``thing`` reading of
        w[i:j]: DET? ADJ* then one or two words, as many DET/ADJ as possible."""
        n, adjs = len(w), self.adjs
        table = {}
        if adjs.isdisjoint(w) and self.dets.isdisjoint(w):
            # no DET, no ADJ: what the loop below gives then, each span one or two plain words
            for i in range(1, n):
                table[(i, i + 1)] = (0, w[i])
                if i + 2 <= n:
                    table[(i, i + 2)] = (0, f"{w[i]} {w[i + 1]}")
            return table
        for i in range(1, n):
            for d in ((1, 0) if w[i] in self.dets else (0,)):
                run = 0   # adjectives in a row after the optional DET
                while i + d + run < n and w[i + d + run] in adjs:
                    run += 1
                for j in range(i + d + 1, min(n, i + d + run + 2) + 1):
                    m = min(run, j - i - d - 1)          # leave one or two words
                    if j - i - d - m <= 2 and ((i, j) not in table or table[(i, j)][0] < d + m):
                        table[(i, j)] = (d + m, " ".join(w[i + d + m:j]))
        return table
