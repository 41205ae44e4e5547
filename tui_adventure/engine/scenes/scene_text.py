"""What characters say when the player talks to them or asks them about something.

Text functions for the scene's ``talk`` and ``ask`` actions: a greeting
(the character's own, else its first persona line), and the answer whose
topic is named in what the player asked, else a shrug. Kept as text
functions so a world's own actions can use them too.
"""

from __future__ import annotations


def scene_functions(spec, entities: dict, name_of) -> dict:
    """``spec``: the world's SceneSpec; ``entities`` and ``name_of`` its own (``World._namers``)."""
    get = entities.get

    def the(cid: str) -> str:
        ent = get(cid)
        return name_of(cid) if ent is not None and ent.article == "" else f"the {name_of(cid)}"

    def greeting(st, cid) -> str:
        c = spec.characters.get(cid)
        if c is None:   # another player: they speak for themselves on their turn
            name = the(cid)
            return f"{name[0].upper()}{name[1:]} looks at you, waiting for their turn."
        if c.greeting:
            return c.greeting
        return c.persona[0] if c.persona else f"{the(cid).capitalize()} nods at you."

    def answer(st, cid, topic) -> str:
        c = spec.characters.get(cid)
        words = set(str(topic or "").lower().replace("the ", " ").split())
        if c is not None:
            for key, text in c.topics.items():
                if set(key.split()) <= words:
                    return text
        name = the(cid)
        return f"{name[0].upper()}{name[1:]} has nothing to say about that."

    return {"greeting": greeting, "answer": answer}
