"""``adventure models probe URL``: ask an OpenAI-compatible server, before a long batch, what a model
player otherwise learns the hard way in the middle of it.

Each question is one or two small requests (a few output tokens each):
does the chat template keep a system message (refused, dropped without a
word, or kept: told by the server's own prompt token counts with and
without it); are tools passed to the model (a tool call under ``required``,
under the tool named, under ``auto``); can tool calls be streamed; do
streams carry usage and a finish reason. The answers are printed on one
screen, and what they settle is kept in the learned-forms cache
(``backends/learned.py``), so the next run asks right from its first turn.

The server is a stranger's: each request is over by ``timeout`` seconds from
its start, streams included, and reads at most ``bounded.MAX_BODY`` bytes
(``backends/bounded.py``); past either the probe stops with one line. A model
id longer than ``MAX_ID`` characters or holding a control character is never
asked, shown or kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .backends.bounded import Bounds, bound_broken, bounded
from .backends.completion import connection_refused, refused_at
from .backends.learned import MAX_ID, keepable

SYSTEM = ("You are playing a text adventure game. Each turn you read what you see and answer with one"
          " command, such as 'take key' or 'go north'. Your goal is to put the book on the shelf. Answer"
          " with the command alone, on one line, starting with '>'. ") * 2
ASK = "Say ok."
ACT = {"type": "function", "function": {
    "name": "act", "description": "Play one command in the game.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}
CALL_ASK = "Call the act tool with the command 'look'."
NAMED = {"type": "function", "function": {"name": "act"}}
TOOL_CHOICES: dict[str, str | dict] = {"required": "required", "named": NAMED, "auto": "auto"}   # the player's order


@dataclass
class Finding:
    question: str
    answer: str
    ok: bool | None      # None: the server gave nothing to tell by


@dataclass
class Report:
    url: str
    model: str
    findings: list[Finding] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)
    kept: str = ""       # what went into the learned-forms cache

    def text(self) -> str:
        mark = {True: "yes ", False: "NO  ", None: "?   "}
        width = max(len(f.question) for f in self.findings)
        lines = [f"{self.url}  model {self.model}"]
        lines += [f"  {mark[f.ok]}{f.question.ljust(width)}  {f.answer}" for f in self.findings]
        lines += [f"  -> {a}" for a in self.advice]
        if self.kept:
            lines.append(f"kept for the next runs: {self.kept}")
        return "\n".join(lines)


class Unreachable(RuntimeError):
    """The server cannot be asked at all (no connection, no model)."""


def _unreachable(url: str, exc: BaseException) -> Unreachable:
    """Said as a model player says it: nothing listening is told apart from a name that does not resolve
    or a server that does not answer in time, since the one fix is to start the server."""
    broken = bound_broken(exc)
    if broken is not None:
        return _out_of_bounds(url, broken)
    return Unreachable(refused_at(url) if connection_refused(exc) else f"cannot reach {url}: {exc}")


def _out_of_bounds(url: str, broken: Bounds) -> Unreachable:
    return Unreachable(f"{url}: {broken}; the probe stops here")


async def probe(url: str, model: str | None = None, key: str = "none", timeout: float = 120.0) -> Report:
    """What the server at ``url`` accepts, asked of ``model`` (default: the first usable id it lists).
    ``Unreachable`` when it cannot be asked: no connection, no usable model, a request over its
    ``timeout`` seconds or the size cap. ``model`` itself must be ``keepable`` (ValueError)."""
    import openai

    if model is not None and not keepable(model):
        raise ValueError(f"--model must be at most {MAX_ID} printable characters")
    client = openai.AsyncOpenAI(base_url=url, api_key=key or "none", timeout=timeout, max_retries=0,
                                http_client=bounded(openai.DefaultAioHttpClient)(timeout=timeout))
    try:
        if model is None:
            model = await _first_model(client, url)
        report = Report(url, model)
        asker = _Asker(client, url, model)
        await _system(asker, report)
        choice, streamed = await _tools(asker, report)
        await _streams(asker, report)
        report.kept = _keep(url, model, report, choice, streamed)
        return report
    finally:
        await client.close()


async def _first_model(client, url: str) -> str:
    import openai

    try:
        listed = await client.models.list()
        ids = [getattr(m, "id", None) for m in listed.data]
    except Bounds as exc:
        raise _out_of_bounds(url, exc) from exc
    except openai.APIConnectionError as exc:
        raise _unreachable(url, exc) from exc
    except openai.APIStatusError as exc:
        raise Unreachable(f"{url} lists no models ({exc.status_code}): name one with --model") from exc
    except (openai.APIError, ValueError, TypeError, AttributeError) as exc:   # a web page, or another API
        raise Unreachable(f"{url} does not answer as an OpenAI-compatible server (its /models is no model"
                          " list): check the URL (it usually ends in /v1)") from exc
    if not ids:
        raise Unreachable(f"{url} lists no models: name one with --model")
    usable = [i for i in ids if keepable(i)]
    if not usable:
        raise Unreachable(f"{url} lists no usable model id (each is longer than {MAX_ID} characters, holds a"
                          " control character or is not text): name one with --model")
    return usable[0]


class _Asker:
    def __init__(self, client, url: str, model: str) -> None:
        self.client, self.url, self.model = client, url, model

    async def ask(self, messages, stream: bool = False, **extra) -> dict:
        """One request, as a dict: the answer's text, tool calls, usage and finish reason, or its refusal."""
        import openai

        body = {"model": self.model, "messages": messages, "temperature": 0, "max_tokens": 40, **extra}
        try:
            if not stream:
                r = await self.client.chat.completions.create(**body)
                if not getattr(r, "choices", None):   # the SDK hands back a text/html body as a str
                    return {"refused": "an answer without choices"}
                m = r.choices[0].message
                return {"text": m.content or "", "calls": [c.function.name for c in m.tool_calls or []],
                        "usage": r.usage.prompt_tokens if r.usage else None, "finish": r.choices[0].finish_reason}
            out: dict = {"text": "", "calls": [], "usage": None, "finish": None, "chunks": 0}
            chunks = await self.client.chat.completions.create(**body, stream=True,
                                                               stream_options={"include_usage": True})
            async for chunk in chunks:   # within the request's deadline and size cap (bounded.py)
                out["chunks"] += 1
                if chunk.usage:
                    out["usage"] = chunk.usage.prompt_tokens
                for choice in chunk.choices or []:
                    out["text"] += (choice.delta.content or "") if choice.delta else ""
                    for tc in (choice.delta.tool_calls if choice.delta else None) or []:
                        if tc.function is not None and tc.function.name:
                            out["calls"].append(tc.function.name)
                    out["finish"] = choice.finish_reason or out["finish"]
            return out
        except Bounds as exc:
            raise _out_of_bounds(self.url, exc) from exc
        except openai.APIConnectionError as exc:
            raise _unreachable(self.url, exc) from exc
        except openai.APIStatusError as exc:
            return {"refused": f"{exc.status_code} {_message(exc)}"}
        except (openai.APIError, ValueError) as exc:
            if (broken := bound_broken(exc)) is not None:   # the SDK's stream hands a timeout on as its own
                raise _out_of_bounds(self.url, broken) from exc
            return {"refused": f"{type(exc).__name__}: {str(exc)[:120]}"}


def _message(exc) -> str:
    body = exc.body
    inner = body.get("error", body) if isinstance(body, dict) else body
    text = inner.get("message") if isinstance(inner, dict) else inner
    return str(text or exc.message)[:120]


async def _system(asker: _Asker, report: Report) -> None:
    with_it = await asker.ask([{"role": "system", "content": SYSTEM}, {"role": "user", "content": ASK}])
    q = "system message kept"
    if "refused" in with_it:
        report.findings.append(Finding(q, f"refused ({with_it['refused']})", False))
        report.advice.append("the player puts its prompt in front of the first user message")
        return
    without = await asker.ask([{"role": "user", "content": ASK}])
    if with_it.get("usage") is None or without.get("usage") is None:
        report.findings.append(Finding(q, "cannot tell: the server reports no usage", None))
        return
    grew = with_it["usage"] - without["usage"]
    kept = grew >= len(SYSTEM) // 4 // 3   # a third of our estimate of it: tokenizers differ, not that much
    said = f"prompt {with_it['usage']} tokens with it, {without['usage']} without"
    report.findings.append(Finding(q, ("kept" if kept else "DROPPED without a word") + f" ({said})", kept))
    if not kept:
        report.advice.append("the template drops the system role: the player puts its prompt in the first message")


async def _tools(asker: _Asker, report: Report):
    """Each tool choice in the player's order; (the first that gave a tool call, whether it streams)."""
    user = [{"role": "user", "content": CALL_ASK}]
    answers = {}
    for name, choice in TOOL_CHOICES.items():
        answers[name] = await asker.ask(user, tools=[ACT], tool_choice=choice)
    required = answers["required"]
    report.findings.append(Finding('tool_choice "required" accepted',
                                   f"refused ({required['refused']})" if "refused" in required else "accepted",
                                   "refused" not in required))
    working = next((n for n in ("required", "named", "auto") if answers[n].get("calls")), None)
    forced = [n for n in ("required", "named") if "refused" not in answers[n]]
    if working in ("required", "named"):
        report.findings.append(Finding("tools honoured", f"a tool call under tool_choice {_said(working)}", True))
    elif forced:
        report.findings.append(Finding("tools honoured", "IGNORED: text under tool_choice " + _said(forced[0])
                                       + f" ({answers[forced[0]].get('text', '')[:40]!r})", False))
        report.advice.append("tool modes end as errors here: start the server with a tool-calling chat format"
                             " (llama-cpp-python: --chat_format chatml-function-calling; llama.cpp's"
                             " llama-server: --jinja), or play --mode text")
    else:
        auto = answers["auto"]
        report.findings.append(Finding("tools honoured", "only under tool_choice \"auto\"" if working else
                                       f"no tool call ({auto.get('refused') or repr(auto.get('text', '')[:40])})",
                                       None if working else False))
    if working is None:
        report.findings.append(Finding("streaming with tools", "not asked (no tool call to stream)", None))
        return None, None
    choice = TOOL_CHOICES[working]
    streamed = await asker.ask(user, stream=True, tools=[ACT], tool_choice=choice)
    ok = bool(streamed.get("calls"))
    answer = "yes" if ok else ("refused (" + streamed["refused"] + ")" if "refused" in streamed
                               else "no: " + ("an empty stream" if not streamed.get("chunks") else "no tool call in it"))
    report.findings.append(Finding("streaming with tools", answer, ok))
    if not ok:
        report.advice.append("the player asks for tool calls unstreamed (the app shows them when they come)")
    return choice, ok


def _said(name: str) -> str:
    return {"required": '"required"', "named": "act by name", "auto": '"auto"'}[name]


async def _streams(asker: _Asker, report: Report) -> None:
    out = await asker.ask([{"role": "user", "content": ASK}], stream=True)
    if "refused" in out:
        report.findings.append(Finding("streaming", f"refused ({out['refused']})", False))
        return
    report.findings.append(Finding("usage in streams", "yes" if out["usage"] is not None else
                                   "no: the player estimates tokens (shown with ≈, recorded as estimated)",
                                   out["usage"] is not None))
    report.findings.append(Finding("finish reason in streams", out["finish"] or "none: every stream would count"
                                   " as cut off", out["finish"] is not None))


def _keep(url: str, model: str, report: Report, choice, streamed) -> str:
    """What the answers settle, into the learned-forms cache under ``openai_compatible``."""
    from .backends.learned import forget_server, remember_server

    facts = {}
    system = next(f.ok for f in report.findings if f.question == "system message kept")
    if system is not None:
        facts["system"] = system
    if choice is not None:
        facts["tool_choice"] = choice
        facts["stream_tools"] = bool(streamed)
    if not facts:
        forget_server("openai_compatible", url, model)
        return ""
    remember_server("openai_compatible", url, model, facts)
    return ", ".join(f"{k} {json.dumps(v)}" for k, v in facts.items())
