"""Keys of the REPL prompt, apart from the loop (as pgcli keeps its bindings) so each reads on its own.

prompt_toolkit's defaults already give what a line editor needs: Tab
completes, up-arrow walks the history, Ctrl-C abandons the line and Ctrl-D
on an empty line leaves. What is added here are keys for the meta-commands
one wants in the middle of typing a command, without losing what was typed.
"""

from __future__ import annotations

from dataclasses import dataclass

from prompt_toolkit.key_binding import KeyBindings

META_KEYS = {"f1": "help", "f2": "score"}


@dataclass(frozen=True)
class MetaKey:
    """What the prompt returns for a meta-command key: the command, and the half-typed line to give back.

    The prompt ends rather than printing from inside the key handler: output
    then comes in the same order as for a typed line, however fast keys
    arrive (a background task would race the next Enter, and lose to it).
    """

    word: str
    kept: str


def repl_bindings() -> KeyBindings:
    kb = KeyBindings()
    for key, word in META_KEYS.items():
        def handler(event, word=word) -> None:
            event.app.exit(result=MetaKey(word, event.current_buffer.text))

        kb.add(key)(handler)
    return kb


def key_hints() -> str:
    return "  ".join(f"{key.upper()} {word}" for key, word in META_KEYS.items())
