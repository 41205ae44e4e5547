"""A language model as a player: one request per turn, built from the episode's messages.

For an imported clembench world the request is what clemcore sends: the
episode's messages as they are (the instance prompt and first room as the
first user message, then the replies and observations alternating), with
temperature 0 and 300 tokens, and the reply is the text stripped, as
clemcore strips it. Native worlds get a prompt written from the world in
front of the first room. In the tool modes the model acts through tool
calls, which become the commands a person would type before the episode
sees them (``players/tools.py``); the history sent back holds the model's
own tool calls and their results, so it reads like a normal tool-using
conversation.

Failures: the SDKs retry what they can; a reply that broke off is asked
for again here, with backoff; after that the player raises ``ModelError``
and ``play_turn`` ends the episode as an error. The request and the raw
response of every call come back with the reply (``Reply.call``) for the
records. Which API is asked is the backend table's business (``backends/``).
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from .backends import BACKENDS
from .backends.learned import facts_for
from .backends.completion import Completion, ModelError, ToolCall, ToolsIgnored, Transient
from .base import as_reply
from .registry import ModelSpec
from .reply import Reply
from .tools import MODES, command_of, read_arguments, tool_specs
from ..engine.text import plural

NOT_PLAYED = "(not played: only the first action of a turn is played)"
PLANNED = "(planned; not played yet)"
MAX_BACKOFF = 8.0


@dataclass
class _Said:
    reply: str
    message: dict             # the assistant message with its tool calls, as the model produced it
    calls: list[ToolCall]


class ModelPlayer:
    """A model from the registry (or a one-off spec), playing in ``text``, ``tool`` or ``tools`` mode."""

    def __init__(self, spec: ModelSpec, mode: str = "text", retry_delay: float = 0.5) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
        self.spec = spec
        self.mode = mode
        # the run's name: a tool-mode run is another run than a text one, and never resumes it
        self.name = spec.name if mode == "text" else f"{spec.name}--{mode}"
        self.backend = spec.backend
        self.gen_args = dict(spec.gen_args)
        self.retry_delay = retry_delay
        self._said: dict[int, _Said] = {}     # by message index, for the episode in ``_said_in``
        self._said_in = None
        self._tools: tuple[object, list[dict]] | None = None

    def __repr__(self) -> str:
        return f"ModelPlayer({self.spec.name!r}, backend={self.backend!r}, mode={self.mode!r})"

    # -- the request ------------------------------------------------------------------
    def tools(self, episode) -> list[dict]:
        if self.mode == "text":
            return []
        world = episode.world
        # a game without our engine's actions (a story file) has one tool in either tool mode: act(command)
        mode = self.mode if episode.game is not None else "tool"
        if self._tools is None or self._tools[0] is not world:
            self._tools = (world, tool_specs(world, mode, episode.planning))
        return self._tools[1]

    def run_facts(self, episode) -> dict:
        """How this run asks: what its records say of it, so runs that ask differently stay apart."""
        facts: dict[str, object] = {"mode": self.mode, "tools": [t["name"] for t in self.tools(episode)],
                                    "tool_choice": None}
        if self.mode != "text":   # what is asked for, and what the calls use (the records update it: the
            #                       recorder sets it to each call's own form when that differs)
            asked = (self.spec.config or {}).get("tool_choice", "required")
            facts.update(tool_choice=asked if asked != "required" else facts_for(self.spec).tool_choice or asked,
                         tool_choice_asked=asked)
        return facts

    def secrets(self) -> tuple:
        key = self.spec.api_key
        return (key,) if isinstance(key, str) and len(key) >= 8 else ()

    def system_prompt(self, episode) -> str | None:
        """Native worlds: our prompt as the system message, so a server's template does not put its
        own there ("You are a helpful AI named ..."); a server that refuses the role gets it in the
        first user message instead (``backends/learned.py``). Imported clembench worlds: none, as
        clemcore sends none (the instance's prompt is in the first message)."""
        from .prompting import system_prompt

        return system_prompt(episode, self.mode)

    def conversation(self, episode) -> list[dict]:
        """The messages to send: the episode's, with this model's own tool calls where it made them."""
        if self._said_in is not episode:   # a new episode (the app restarts with the same player)
            self._said, self._said_in = {}, episode
        msgs = episode.messages
        system = self.system_prompt(episode)
        out: list[dict] = [{"role": "system", "content": system}] if system else []
        i = 0
        while i < len(msgs):
            m = msgs[i]
            if i == 0:
                out.append({"role": "user", "content": m["content"]})
                i += 1
                continue
            said = self._said.get(i) if m["role"] == "assistant" else None
            if said is not None and said.reply == m["content"] and said.calls:
                out.append(said.message)
                answered = i + 1 < len(msgs) and msgs[i + 1]["role"] == "user"
                observation = msgs[i + 1]["content"] if answered else ""
                rest = PLANNED if episode.planning else NOT_PLAYED
                for j, call in enumerate(said.calls):
                    out.append({"role": "tool", "tool_call_id": call.id, "content": observation if j == 0 else rest})
                i += 2 if answered else 1
                continue
            if len(out) > 1 and out[-1]["role"] == m["role"] and "tool_calls" not in out[-1]:
                # as clemcore: consecutive messages of one role are joined (never happens in play)
                out[-1] = {**out[-1], "content": f"{out[-1]['content']}\n\n{m['content']}"}
            else:
                out.append({"role": m["role"], "content": m["content"]})
            i += 1
        return out

    async def _complete(self, messages, tools, stream) -> Completion:
        return await BACKENDS[self.backend].complete(self.spec, messages, tools, "required", stream)

    # -- one turn ------------------------------------------------------------------------
    async def reply(self, episode, stream=None) -> Reply:
        """One answer. Every attempt is kept (start, seconds, outcome), and the turn's time runs from
        the first one's start: a turn that waited out a timeout and asked twice more took minutes,
        not the seconds of its last request."""
        messages = self.conversation(episode)
        tools = self.tools(episode)
        attempts: list[dict] = []
        begun, first = time.perf_counter(), datetime.now()
        while True:
            start, started = datetime.now(), time.perf_counter()
            try:
                result = await self._complete(messages, tools, stream)
                break
            except Transient as exc:
                attempts.append(_attempt(start, started, f"asked again: {exc}"))
                if len(attempts) > self.spec.max_retries:
                    raise ModelError(f"{exc} (gave up after {plural(len(attempts), 'try', 'tries')},"
                                     f" {time.perf_counter() - begun:.1f} s in all)") from exc
                if stream is not None:
                    stream(f"\n[{exc}: asking again]\n")
                await asyncio.sleep(min(self.retry_delay * 2 ** (len(attempts) - 1), MAX_BACKOFF))
            except ModelError as exc:
                if _was_retried(exc.__cause__):
                    raise ModelError(f"{exc} (after {plural(self.spec.max_retries, 'retry', 'retries')})") from exc.__cause__
                raise
        attempts.append(_attempt(start, started, "answered"))
        if tools and not result.tool_calls and result.options.get("tool_choice", "required") != "auto":
            raise ToolsIgnored(_ignored(self.spec, result))
        elapsed = time.perf_counter() - begun
        reply = self._reply_of(episode, result)
        if stream is not None and result.tool_calls and not result.text:
            stream(reply)
        call = {"manipulated_prompt_obj": result.sent, "raw_response_obj": result.raw,
                "call_start": first, "call_duration": timedelta(seconds=elapsed),
                "request_options": dict(result.options), "attempts": attempts}
        if result.tokens_estimated:   # the counts shown with "≈", kept as what they are
            call["usage_estimated"] = {"prompt_tokens": result.tokens_in, "completion_tokens": result.tokens_out}
        if result.tool_calls:
            # content "" and never null (llama.cpp's server rejects null); the model's own words, unescaped:
            # a chat template that HTML-escapes would otherwise escape its own escapes every turn
            message = {"role": "assistant", "content": _unescaped(result.text),
                       "tool_calls": [{"id": c.id, "type": "function",
                                       "function": {"name": c.name, "arguments": read_arguments(c.arguments)[1]}}
                                      for c in result.tool_calls]}
            self._said[len(episode.messages)] = _Said(reply, message, list(result.tool_calls))
        notes: tuple[str, ...] = ()
        if result.options.get("learned") and not episode.turns:
            notes = (f"asked as learned on {result.options['learned']} (kept in the cache)",)
        return Reply(reply, call=call, tokens_in=result.tokens_in, tokens_out=result.tokens_out, latency=elapsed,
                     tokens_estimated=result.tokens_estimated, finish_reason=result.finish_reason,
                     tool_calls=tuple((c.name, c.arguments) for c in result.tool_calls), raw=result.text,
                     secrets=self.secrets(), attempts=tuple(attempts), notes=notes)

    def _reply_of(self, episode, result: Completion) -> str:
        """The reply the episode judges: the text as clemcore strips it, or the tool calls as a command.

        A tool call that gives no plan in the planning variant gets an empty plan line, never
        words the model did not produce."""
        if self.mode == "text" or not result.tool_calls:
            return result.text.strip()
        world = episode.world if episode.game is not None else None   # None: a game whose one tool is act
        commands = [command_of(world, c.name, read_arguments(c.arguments)[0]) for c in result.tool_calls]
        command, plan = commands[0]
        plan = plan or [c for c, _ in commands[1:]]
        return as_reply(episode, command, plan)


def _attempt(start: datetime, started: float, outcome: str) -> dict:
    return {"start": start.isoformat(timespec="milliseconds"), "seconds": round(time.perf_counter() - started, 3),
            "outcome": outcome}


def _ignored(spec, result: Completion) -> str:
    choice = json.dumps(result.options.get("tool_choice", "required"))
    said = result.text.strip().replace("\n", " ")
    return (f"{spec.base_url or f'the {spec.backend} API'} ignores tools: asked for a tool call (tool_choice"
            f" {choice}), the answer was text ({said[:80]!r}). Start the server with a tool-calling chat"
            " format (llama-cpp-python: --chat_format chatml-function-calling; llama.cpp's llama-server:"
            " --jinja), or play in --mode text")


def _unescaped(text: str) -> str:
    return html.unescape(text) if "&" in text else text


def _was_retried(cause) -> bool:
    """Whether the SDK retried before giving up (it does for 408, 409, 429, 5xx and lost connections)."""
    status = getattr(cause, "status_code", None)
    if status is not None:
        return status in (408, 409, 429) or status >= 500
    return cause is not None and any(n in type(cause).__name__ for n in ("Connection", "Timeout"))

