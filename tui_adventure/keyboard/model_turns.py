"""A model's turn as lines a person reads: the command played, what the model said, the call's figures.

The episode keeps only what it judged (the command, read from the reply's
first line or built from a tool call); a researcher watching a model wants
what the model actually wrote beside it, and what the call cost. Both front
ends draw a model turn from this one function, so the app and the REPL never
disagree about what counts as "more than the command". Plain strings only:
the REPL must not need Textual, and each front end applies its own styles.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..engine.sources import parse_json
from ..gamemaster.episode import Turn
from ..players import Reply


@dataclass(frozen=True)
class ModelTurn:
    command: str                 # "> take key", or why there is none
    said: tuple[str, ...]        # the reply as the model wrote it, then "call name(...)" per tool call;
    #                              () when it held nothing but the command
    extra: tuple[str, ...]       # ``said`` without the line the command was read from
    figures: str                 # latency (with the re-asks), tokens, finish reason, notes


def _answer(turn: Turn) -> Reply | None:
    """The player's Reply the turn keeps, if any."""
    return turn.answer


def is_model_turn(turn: Turn) -> bool:
    """Programs answer with no latency: their turns stay one bare command line, as before."""
    answer = _answer(turn)
    return answer is not None and answer.latency is not None


def model_turn(turn: Turn) -> ModelTurn | None:
    """How to show ``turn``, or None when no model played it."""
    answer = _answer(turn)
    if answer is None or not is_model_turn(turn):
        return None
    written = _lines(_written(answer))
    calls = tuple(f"call {format_call(name, arguments)}" for name, arguments in answer.tool_calls)
    if turn.command is None:
        command = "(no command: the reply was refused)" if written or calls else "(empty reply)"
        return ModelTurn(command, written + calls, written + calls, figures(answer))
    at = _command_line(written, turn.command)
    extra = tuple(line for i, line in enumerate(written) if i != at)
    if not calls and not any(line.strip() for line in extra):
        return ModelTurn(f"> {turn.command}", (), (), figures(answer))
    return ModelTurn(f"> {turn.command}", written + calls, _trim(extra) + calls, figures(answer))


def _written(answer: Reply) -> str:
    """What the model wrote: its raw text when the player kept it. A reply built from tool calls is
    ours, not the model's words, so without the raw text such a turn shows its calls alone."""
    if answer.raw is not None:
        return answer.raw
    return "" if answer.tool_calls else answer.text


def _lines(text: str) -> tuple[str, ...]:
    return _trim(tuple(line.rstrip() for line in text.splitlines()))


def _trim(lines: tuple[str, ...]) -> tuple[str, ...]:
    """Without blank lines at either end (the ones between paragraphs stay)."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _command_line(lines: tuple[str, ...], command: str) -> int | None:
    """The index of the line the command was read from (``> take key`` or ``take key``), if any."""
    for i, line in enumerate(lines):
        text = line.strip()
        if text == command or (text.startswith(">") and text[1:].strip() == command):
            return i
    return None


def format_call(name: str, arguments) -> str:
    """``act(command="take key", next_actions=["go east"])``: a call reads as a call, not as JSON.
    Arguments that are not a JSON object are shown as the model sent them."""
    if isinstance(arguments, str):
        try:
            parsed = parse_json(arguments) if arguments.strip() else {}
        except ValueError:
            return f"{name}({arguments})"
    else:
        parsed = arguments
    if not isinstance(parsed, dict):
        return f"{name}({arguments if isinstance(arguments, str) else _json(arguments)})"
    return f"{name}({', '.join(f'{key}={_json(value)}' for key, value in parsed.items())})"


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def figures(answer: Reply) -> str:
    """``2.31 s · tokens 812 in, 14 out · finish: stop``; counts the server did not give are
    marked as ours, since a cost estimate read as a measurement misleads."""
    parts = [f"{answer.latency:.2f} s"] if answer.latency is not None else []
    again = answer.attempts[:-1]
    if again and parts:   # the turn's time counts the re-asks: say what they were
        parts[0] += f" in all, {len(again)} re-ask{'s' if len(again) > 1 else ''} (" + "; ".join(
            f"{a['seconds']:.1f} s: {_short(a['outcome'])}" for a in again) + ")"
    if answer.tokens_in is not None or answer.tokens_out is not None:
        mark = "≈" if answer.tokens_estimated else ""
        tokens = f"tokens {mark}{_count(answer.tokens_in)} in, {mark}{_count(answer.tokens_out)} out"
        parts.append(tokens + (" (estimated)" if answer.tokens_estimated else ""))
    if answer.finish_reason:
        parts.append(f"finish: {answer.finish_reason}")
    return " · ".join(parts + list(answer.notes))


def _short(outcome: str, limit: int = 80) -> str:
    text = outcome.removeprefix("asked again: ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _count(n: int | None) -> str:
    return "?" if n is None else str(n)


def request_messages(answer: Reply) -> list[tuple[str, str]]:
    """The request a turn sent, as (heading, body) per message, for reading rather than parsing.

    The messages are whatever the backend sent (OpenAI's with ``tool_calls`` and ``tool`` results,
    Anthropic's content blocks), so each shape is spelled out the way the model saw it.
    """
    messages = (answer.call or {}).get("manipulated_prompt_obj") or []
    out = []
    for message in messages:
        if not isinstance(message, dict):
            out.append(("?", str(message)))
            continue
        role = str(message.get("role", "?"))
        heading = role if "tool_call_id" not in message else f"{role} (result of {message['tool_call_id']})"
        body = _content(message.get("content"))
        calls = [format_call(c.get("function", {}).get("name", "?"), c.get("function", {}).get("arguments", ""))
                 for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        out.append((heading, "\n".join(part for part in [body, *(f"call {c}" for c in calls)] if part)))
    return out


def _content(content) -> str:
    """A message's content: text, or a list of blocks (text, tool use, tool result)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return _json(content)
    parts = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            parts.append(f"call {format_call(str(block.get('name', '?')), block.get('input', {}))}")
        elif kind == "tool_result":
            parts.append(f"result of {block.get('tool_use_id', '?')}: {_content(block.get('content'))}")
        else:
            parts.append(_json(block))
    return "\n".join(parts)
