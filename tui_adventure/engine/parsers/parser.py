"""The command parser for rulesets written with ``syntax`` patterns.

Input is lowercased and cut into words; the first word picks the few patterns
that could match (a dictionary lookup, not a scan of every action); each
pattern is an anchored regular expression whose slots are then resolved to
entities the player can see. What a phrase names does not depend on the state,
so it is read once per world (``_named``; the things' own names at load), and
a parse only asks whether the thing is in sight. A name that fits several
visible things becomes a question ("Which do you mean, ...?") whose answer is
read as the next command.
Nothing here raises on any input: every outcome is a ``Parsed``, a
``Failure`` or a ``Question``.
"""

from __future__ import annotations

import re
from itertools import islice
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from ..parts import WorldPart
from ..text import english_list
from .patterns import SLOT, Pattern, compile_pattern, layout_of

if TYPE_CHECKING:
    from ..rules.ruleset import Action

DETERMINERS = frozenset({"the", "a", "an", "some", "my"})
ALL_WORDS = frozenset({"all", "everything", "every thing"})
PRONOUNS = frozenset({"it", "them", "him", "her"})
_ANY_LAST = ("any",)   # a parse memo's "it" when its words hold no pronoun: the outcome holds for any
_CLEAN_RE = re.compile(r"[^a-z0-9' -]+")
MAX_INPUT = 500  # characters looked at; longer input is cut (a 100 kB line must not stall a turn)
MEMO_TEXT = 200  # only inputs up to this long are memoised
MEMO_PARSES = 8_192  # parses remembered per world by state (see ``parse``)
MEMO_PHRASES = 4_096  # phrases typed, read and remembered per world, beyond its things' own names
_NONE: frozenset = frozenset()
SCOPE = "scope"    # a state's cache entry holding its scope, once the style worked it out (ClassicStyle.scope)
MEMO_SIGHTED = 8_192   # parses remembered per world by what is in sight (see ``parse``)


@dataclass(slots=True)
class Parsed:
    action: Action
    env: dict                   # slot -> value (an id, a direction, or for "all" a list of ids)
    all_slot: str | None = None


@dataclass(slots=True)
class Failure:
    phase: str                  # "parsing" | "resolution"
    type: str
    message: str


@dataclass(slots=True)
class Question:
    """An ambiguous name: ask, and remember enough to finish the command with the answer."""
    message: str
    action: Action
    env: dict
    slot: str
    candidates: list[str]
    phrases: dict = field(default_factory=dict)


# lowercase words, single spaces: most typed commands (no possessive quantifiers: Python 3.10 has none,
# and a failed match backs up a letter at a time only, a word never being able to end but at a space)
_PLAIN_RE = re.compile(r"[a-z]+(?: [a-z]+)*\Z")


def normalise(text: str) -> list[str]:
    if len(text) <= MAX_INPUT and _PLAIN_RE.match(text):
        return text.split(" ")   # nothing below would change it
    text = _CLEAN_RE.sub(" ", text[:MAX_INPUT].lower().replace("\t", " "))
    return [w.strip("'-") for w in text.split() if w.strip("'-")]


class CommandParser(WorldPart):
    def __init__(self, world, style, one_words=(), reads: dict | None = None) -> None:
        """``one_words``: words the style reads without a state (directions), besides the verbs: a
        command of one of them is read once, at load (see ``_read_once``). ``reads``: for a slot's
        kind, a function giving a hashable value that stands for all the style's reading of a word of
        that kind depends on in this world (``direction``: the passages' names); a world whose values for the
        kinds ``_read_once`` asks about are another's takes its commands of one word from that one's."""
        self.part_of(world)
        self.style = style
        # the patterns, laid out once per list of action definitions (``Layout``), bound to this world's
        lay = layout_of(world.actions, world.compiler.tables)
        self.actions = world.actions   # a pattern's action is its index in these (``Pattern.action``)
        self.by_first, self.slot_first, self.tried = lay.by_first, lay.slot_first, lay.tried   # shared: never changed
        self.verbs = lay.verbs
        vocab: dict[str, list[str]] = {}
        for ent in world.entities.values():   # in the world's order (World.order)
            if ent.kind == "object" and not ent.hidden:
                for w in ent.words():
                    ids = vocab.get(w)
                    if ids is None:
                        vocab[w] = [ent.id]
                    else:
                        ids.append(ent.id)
        self.vocab = {w: frozenset(ids) for w, ids in vocab.items()}
        self.in_order = {w: tuple(ids) for w, ids in vocab.items()}   # as sort_ids has them
        self.known_words = self.verbs.union(DETERMINERS, PRONOUNS, ALL_WORDS, lay.words, vocab)
        # phrase -> what it names in any state (see ``_name``). A word of a thing's names names the
        # things it is a word of (``in_order``), as ``_name`` reads it, unless it is a determiner
        # (dropped), a pronoun or two words: put here at once, so a parse looks it up.
        self._named: dict = {w: ids for w, ids in self.in_order.items()
                             if " " not in w and w not in DETERMINERS and w not in PRONOUNS}
        self._typed: dict = {}   # a phrase typed -> what it names, as ``_named``; at most MEMO_PHRASES
        for ent in world.entities.values():
            # A thing's own name of several words, read at load: players name things so (a phrase
            # of one word costs a parse one lookup in ``in_order``).
            if ent.kind == "object" and not ent.hidden and " " in ent.name and ent.name not in self._named:
                self._named[ent.name] = self._name(ent.name)
        self._parses: dict = {}   # (state, text) -> a parse's outcome (see ``parse``)
        self._no_pronoun: dict = {}   # command -> it names no pronoun (see ``names_no_pronoun``)
        self._sighted: dict = {}   # (text, scope) -> a parse's outcome, for states whose scope is known
        self.memo_limit = MEMO_PARSES   # how many parses ``_parses`` holds at most
        self._read_last = False   # set when a parse read what "it" means
        self._read_all = False    # set when a parse read what "all" takes (``_resolve``)
        self.once = self._once(one_words, lay, reads)

    def _once(self, one_words, lay, reads) -> dict:
        """``_read_once``'s table, read once per layout, words and what the style reads of the world
        (a generated world per reset reads the same words the same way): shared as action indexes."""
        kinds = lay.lone_kinds
        if reads is None or not all(k in reads for k in kinds):
            return self._read_once(set(self.by_first) | set(one_words), lay)
        key = (one_words if isinstance(one_words, frozenset) else frozenset(one_words),
               tuple(reads[k]() for k in kinds))
        shared = lay.once.get(key)
        if shared is None:
            index = {a: i for i, a in enumerate(self.actions)}
            shared = {w: (index[a], env) for w, (a, env) in
                      self._read_once(set(self.by_first) | set(one_words), lay).items()}
            if len(lay.once) >= lay.ONCE:
                lay.once.clear()
            lay.once[key] = shared
        actions = self.actions
        return {w: (actions[i], env) for w, (i, env) in shared.items()}   # env: copied by every reader

    def _read_once(self, words, lay) -> dict:
        """word -> (action, env) for a command of one word read the same in every state (north, look).

        As ``_parse`` reads it: of the patterns of one part (no other can match
        one word), a word's own come first ("look"), then those of a lone slot:
        the first whose slot reads the word decides ("{dir}" passes "look" on);
        a thing's slot depends on the state, so there the word is left to
        ``_parse``, as is a word no pattern reads.
        """
        out: dict = {}
        own = lay.own   # the layout's: word -> its own pattern of that word alone
        actions = self.actions
        for word in words:
            if not _PLAIN_RE.match(word) or " " in word:
                continue   # not one word as a command reads once cleaned: never looked up
            pat = own.get(word)
            if pat is not None:
                out[word] = (actions[pat.action], {})
                continue
            for pat in lay.lone:
                if pat.kinds[0] == "thing":
                    break
                got = self._slot(pat.kinds[0], word, None, {}, ())
                if got is not None:
                    out[word] = (actions[pat.action], {pat.slots[0]: got})
                    break
        return out

    def names_no_pronoun(self, command: str) -> bool:
        """Whether ``command`` names no pronoun (remembered: at most ``MEMO_PHRASES`` commands)."""
        got = self._no_pronoun.get(command)
        if got is None:
            if len(self._no_pronoun) >= MEMO_PHRASES:
                self._no_pronoun.clear()
            got = self._no_pronoun[command] = PRONOUNS.isdisjoint(normalise(command))
        return got

    # ------------------------------------------------------------------
    def parse(self, text: str, st, last=()) -> Parsed | Failure | Question:
        """Parse ``text`` against what is in sight in ``st``; ``last`` is what "it" means: the game's
        own (one parser serves every game of a world, so it keeps no state of any game), a sequence
        of ids the caller never changes after (``Game`` replaces its list): the memo keeps it.

        The outcome depends only on the words, the state and the last thing
        named, so it is memoised on exactly those ("take all" is never
        memoised): on (state, words), with ``last`` kept beside the outcome
        and compared on a hit, in ``_parses`` (at most ``memo_limit``: past
        it the older half is forgotten). A state whose scope is already known
        (the Gymnasium env keys its admissible commands on what is in sight,
        so every state it meets has it) shares its parses with every state
        that sees the same things (``_sighted``, at most ``MEMO_SIGHTED``): a
        parse reads the state only through ``visible`` and ``scope`` but for
        what "all" takes (never shared), and the style's ``visible(st, x)``
        is ``x in scope(st)`` (a test holds them equal).
        """
        once = self.once.get(text)
        if once is not None:   # a plain word of its own (north, look): the same in every state
            return Parsed(once[0], once[1].copy())
        if len(text) > MEMO_TEXT:  # long input is rare and would bloat the memo
            return self._parse(text, st, last)
        key = (st, text)
        parses = self._parses
        hit = parses.get(key)
        if hit is not None and (hit[0] is last or hit[0] is _ANY_LAST or hit[0] == last):
            return Parsed(hit[1], hit[2].copy()) if len(hit) == 3 else hit[1]
        scope = st.cache.get(SCOPE)
        if scope is not None:
            sighted = self._sighted
            hit = sighted.get((text, scope))
            if hit is not None and (hit[0] is last or hit[0] is _ANY_LAST or hit[0] == last):
                return Parsed(hit[1], hit[2].copy()) if len(hit) == 3 else hit[1]
        self._read_last = self._read_all = False
        result = self._parse(text, st, last)
        # what "it" means is read only for a pronoun (``_referent``): without one the outcome holds for any
        seen = last if self._read_last else _ANY_LAST
        if type(result) is Parsed:
            if result.all_slot:
                return result
            kept: tuple = (seen, result.action, result.env.copy())   # the caller may change the env it is handed
        else:
            kept = (seen, result)   # a Failure or a Question, never changed
        if len(parses) >= self.memo_limit:
            for old in list(islice(parses, len(parses) // 2)):
                del parses[old]
        parses[key] = kept
        if scope is not None and not self._read_all:
            if len(sighted) >= MEMO_SIGHTED:
                sighted.clear()
            sighted[(text, scope)] = kept
        return result

    def _parse(self, text: str, st, last) -> Parsed | Failure | Question:
        if len(text) <= MAX_INPUT and _PLAIN_RE.match(text):
            words = text.split(" ")   # normalise's own shortcut: the line is the text
            line = text
        else:
            words = normalise(text)
            if not words:
                return Failure("parsing", "empty", "I beg your pardon?")
            line = " ".join(words)
        best: Failure | Question | None = None
        n = len(words)
        cut = len(words[0]) + 1   # where the verb's slot starts (see ``_cut``)
        for pat in self.tried.get(words[0], self.slot_first):
            if pat.size > n:
                continue   # each part takes a word at least
            sep = pat.sep
            groups: tuple
            if sep is None:
                groups = (line[cut:],)
            elif sep:
                i = line.find(sep, cut)
                if i < 0:
                    continue
                groups = (line[cut:i], line[i + len(sep):])
            else:
                if pat.needs and pat.needs.isdisjoint(words):
                    continue   # a literal is a whole word: no match
                m = pat.regex.match(line)
                if m is None:
                    continue
                groups = m.groups()
            result = self._resolve(pat, groups, st, last)
            kind = type(result)
            if kind is Parsed or kind is Question:
                return result
            if result is not None and (best is None or _rank(result) > _rank(best)):
                best = result
        if best is not None:
            return best
        patterns = self.by_first.get(words[0], ())
        if words[0] in self.verbs:
            needs = [p for p in patterns if p.slots]
            if len(words) == 1 and needs:
                return Failure("parsing", "missing_object", f"What do you want to {words[0]}?")
            asked = self._ask_for_last_slot(line, patterns, st, last)
            if asked is not None:
                return asked
            return Failure("parsing", "malformed", "I don't understand that sentence.")
        if words[0] not in self.known_words:
            return Failure("parsing", "unknown_verb", f"I don't know the verb '{words[0]}'.")
        return Failure("parsing", "unknown_verb", "That's not a verb I recognise.")

    def _ask_for_last_slot(self, line: str, patterns, st, last) -> Question | None:
        """``unlock door`` for ``unlock {obj} with {key}``: ask "with what?" and finish with the answer."""
        for pat in patterns:
            words = pat.text.split()
            if len(words) < 3 or not SLOT.fullmatch(words[-1]) or words[-2].startswith("{"):
                continue
            missing, prep = words[-1][1:-1], words[-2].split("|")[0]
            action = self.actions[pat.action]
            head = compile_pattern(pat.action, " ".join(words[:-2]), action.spec.params)
            m = head.regex.match(line)
            if not m or action.spec.params.get(missing, "thing") != "thing":
                continue
            got = self._resolve(head, m.groups(), st, last)
            if not isinstance(got, Parsed) or got.all_slot:
                continue
            named = set(got.env.values())
            candidates = [x for x in self.style.scope(st) if x not in named and x in self.entities
                          and self.entities[x].kind == "object"]
            if not candidates:
                continue
            what = " ".join(f"the {self.name_of(v)}" for v in got.env.values())
            verb = words[0].split("|")[0]
            return Question(f"What do you want to {verb} {what} {prep}?", action, got.env, missing,
                            sorted(candidates, key=lambda x: self.order.get(x, 0)))
        return None

    def answer(self, text: str, q: Question, st, last=()) -> Parsed | None:
        """Read ``text`` as the answer to ``q``; None when it is a new command instead."""
        words = [w for w in normalise(text) if w not in DETERMINERS and w != "one"]
        if not words or (words[0] in self.verbs and len(words) > 1):
            return None
        fits = [c for c in q.candidates if set(words) <= self.entities[c].words()]
        if len(fits) != 1:
            return None
        env = dict(q.env)
        env[q.slot] = fits[0]
        for slot, phrase in q.phrases.items():
            if slot not in env:
                got = self._slot(q.action.spec.params.get(slot, "thing"), phrase, st, env, tuple(last))
                if not isinstance(got, str):
                    return None
                env[slot] = got
        return Parsed(q.action, env)

    # ------------------------------------------------------------------
    def _resolve(self, pat: Pattern, groups: tuple, st, last):
        """``groups``: each slot's phrase, in the pattern's order."""
        env: dict = {}
        all_slot = None
        # "put it in the mailbox": name the other things first, so "it" can skip what they name
        parts: Sequence[tuple] = pat.parts
        if len(parts) == 2:   # what sorting on "is a pronoun" does to two slots
            if groups[0] in PRONOUNS and groups[1] not in PRONOUNS:
                parts = (parts[1], parts[0])
        elif len(parts) > 2:
            parts = sorted(parts, key=_PronounLast(groups))
        for slot, kind, i in parts:
            phrase = groups[i]
            if kind != "thing":
                got = self._slot(kind, phrase, st, env, last)
            elif phrase in ALL_WORDS and self.actions[pat.action].spec.all_slot == slot:
                self._read_all = True   # what "all" takes reads the rules, not only what is in sight
                items = self.style.all_candidates(self.actions[pat.action], slot, st)
                if not items:
                    return Failure("resolution", "nothing", f"There is nothing to {pat.text.split()[0].split('|')[0]}.")
                env[slot] = items
                all_slot = slot
                continue
            else:
                named = self._named.get(phrase) or self._typed.get(phrase) or self._name(phrase)
                if type(named) is tuple and len(named) == 1:   # ``_thing``'s usual answer, as it gives it
                    if self.style.visible(st, named[0]):
                        env[slot] = named[0]
                        continue
                    return Failure("resolution", "not_visible", "You can't see any such thing.")
                got = self._thing(named, phrase, st, env, last)
            if type(got) is str:
                env[slot] = got
                continue
            if type(got) is list:
                return self._which(pat, groups, env, slot, got)
            return got
        return Parsed(self.actions[pat.action], env, all_slot)

    def _which(self, pat: Pattern, groups: tuple, env: dict, slot: str, got: list) -> Question:
        """"Which do you mean?" about ``slot``."""
        names = [f"the {self.style.distinct_name(c, got)}" for c in got]
        phrases = {s: groups[i] for i, s in enumerate(pat.slots) if s != slot and s not in env}
        return Question(f"Which do you mean, {english_list(names, 'or')}?", self.actions[pat.action], env, slot, got,
                        phrases)

    def _slot(self, kind: str, phrase: str, st, env, last):
        """An id (resolved), a list of ids (ambiguous), a Failure, or None (not this pattern)."""
        if kind == "thing":
            return self._thing(self._named.get(phrase) or self._typed.get(phrase) or self._name(phrase), phrase, st, env, last)
        if kind == "dir":
            return self.style.direction(phrase)
        if kind == "room":
            return self.style.room_named(phrase)
        return phrase   # a word

    def _thing(self, named, phrase: str, st, env, last):
        """A thing's slot, given what its phrase names (``_name``)."""
        if type(named) is tuple:
            if len(named) == 1:
                if self.style.visible(st, named[0]):
                    return named[0]
                return Failure("resolution", "not_visible", "You can't see any such thing.")
            return self._among(named, st, phrase)
        if type(named) is str:
            return self._referent(named, st, env, last)
        return Failure(named.phase, named.type, named.message)   # the caller's own: it may keep it

    def _name(self, phrase: str):
        """What ``phrase`` names in any state: the things it fits (a tuple, never empty), a pronoun
        (str), or the Failure it is; kept per world (``_typed``, bounded), so a phrase is read once."""
        words = phrase.split()
        if not DETERMINERS.isdisjoint(words):
            words = [w for w in words if w not in DETERMINERS]
        named: Failure | str | tuple
        if not words:
            named = Failure("parsing", "missing_object", "You need to say what.")
        elif len(words) == 1 and words[0] in PRONOUNS:
            named = words[0]
        else:
            # The things whose words include all of these (pronouns aside), in the world's order:
            # those of the first word (``in_order``) that the others' have too.
            known, vocab = self.known_words, self.vocab
            found: tuple | None = None
            unknown = None
            for w in words:
                if w not in known:
                    # Same text as for a real but unseen thing: the answer must not tell them apart.
                    unknown = Failure("parsing", "unknown_word", "You can't see any such thing.")
                    break
                if w not in PRONOUNS:
                    found = self.in_order.get(w, ()) if found is None else \
                        tuple(filter(vocab.get(w, _NONE).__contains__, found))
            named = unknown or found or Failure("resolution", "not_visible", "You can't see any such thing.")
        typed = self._typed
        if len(typed) >= MEMO_PHRASES:
            typed.clear()
        typed[phrase] = named
        return named

    def _referent(self, word: str, st, env, last):
        """What a pronoun names: the last thing named that no other slot names, if still in sight."""
        self._read_last = True   # the parse depends on ``last`` (see ``parse``'s memo)
        if not last:
            return Failure("parsing", "no_referent", f"I'm not sure what '{word}' refers to.")
        named = set(env.values()) if env else set()
        fits = [x for x in last if x not in named] or list(last)
        if self.style.visible(st, fits[0]):
            return fits[0]
        return Failure("resolution", "not_visible", "You can't see that any more.")

    def _among(self, cands: tuple, st, phrase: str):
        """Of several things a phrase fits, the one in sight, or the one named exactly, or all in sight."""
        visible = self.style.visible
        seen = [c for c in cands if visible(st, c)]
        if not seen:
            return Failure("resolution", "not_visible", "You can't see any such thing.")
        if len(seen) == 1:
            return seen[0]
        name = " ".join(w for w in phrase.split() if w not in DETERMINERS)
        exact = [c for c in seen if self.entities[c].name == name]
        if len(exact) == 1:
            return exact[0]
        return seen


class _PronounLast:
    """Sort key putting slots whose phrase is a pronoun last."""

    __slots__ = ("groups",)

    def __init__(self, groups: tuple) -> None:
        self.groups = groups

    def __call__(self, part: tuple) -> bool:
        return self.groups[part[2]] in PRONOUNS


def _rank(f) -> int:
    if isinstance(f, Question):
        return 5
    return {"not_visible": 4, "no_referent": 3, "unknown_word": 2, "nothing": 3}.get(f.type, 1)
