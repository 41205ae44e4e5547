"""Every model backend tui-adventure speaks: one entry each in one table, registered by name.

An entry holds all the rest of the package needs to know about a backend
without importing its code: where its key and server come from, which SDK
it needs, and what it sends unless told otherwise. Its code, and the SDK
with it, is imported only when a model of that backend plays, so the
package loads without the optional SDKs and the model registry can check
and list every backend for free. A backend is one entry here and one
module beside it; nothing else in the package names backends.
"""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass
from typing import Awaitable, Callable, Protocol

from .completion import Completion, ModelError
from .routing import DEFAULT_BODIES


class Complete(Protocol):
    def __call__(self, spec, messages: list[dict], tools: list[dict] | None = None, tool_choice="required",
                 stream: Callable[[str], None] | None = None) -> Awaitable[Completion]: ...


@dataclass(frozen=True)
class Backend:
    name: str                            # as clemcore's model_registry.json and key.json spell it
    loader: Callable[[], Complete]       # imports the backend's module; returns its ``complete``
    sdk: str                             # the module that module needs
    key_env: str                         # where the key comes from when key.json has none
    url_env: str | None = None           # where the server comes from when the entry and key.json name none
    default_url: str | None = None       # the server when nothing names one (None: the SDK's own)
    url_required: bool = False           # no usual server: one must be named, and records say which
    key_required: bool = True            # local servers take any key
    default_body: dict | None = None     # request fields sent unless the entry gives its own extra_body
    extra: str | None = None             # the package extra that installs ``sdk`` (None: a dependency)

    def missing(self) -> str | None:
        """Why this backend cannot play here (its SDK is not installed), or None when it can."""
        if importlib.util.find_spec(self.sdk) is not None:
            return None
        if self.extra:
            return f"the {self.name} backend needs the extra: pip install 'tui-adventure[{self.extra}]'"
        return f"the {self.name} backend needs the {self.sdk} package: pip install {self.sdk}"

    def body(self) -> dict | None:
        """``default_body`` as a request may use it (a copy: the table is shared by every request)."""
        return copy.deepcopy(self.default_body)

    async def complete(self, spec, messages: list[dict], tools: list[dict] | None = None,
                       tool_choice="required", stream=None) -> Completion:
        problem = self.missing()
        if problem:
            raise ModelError(problem)
        return await self.loader()(spec, messages, tools, tool_choice, stream)


BACKENDS: dict[str, Backend] = {}


def backend(name: str, **facts) -> Callable[[Callable[[], Complete]], Callable[[], Complete]]:
    """Register the decorated loader as backend ``name``; ``facts`` are ``Backend``'s other fields."""
    def register(loader: Callable[[], Complete]) -> Callable[[], Complete]:
        BACKENDS[name] = Backend(name=name, loader=loader, **facts)
        return loader
    return register


# -- the table ---------------------------------------------------------------------------------
@backend("openai", sdk="openai", key_env="OPENAI_API_KEY")
def openai() -> Complete:
    from .openai_chat import complete
    return complete


@backend("openai_compatible", sdk="openai", key_env="OPENAI_COMPATIBLE_API_KEY",
         url_env="OPENAI_COMPATIBLE_BASE_URL", url_required=True, key_required=False)
def openai_compatible() -> Complete:
    """vLLM, llama.cpp's server, Ollama, LM Studio: any server that speaks chat completions."""
    from .openai_chat import complete
    return complete


@backend("openrouter", sdk="openai", key_env="OPENROUTER_API_KEY", default_url="https://openrouter.ai/api/v1",
         default_body=DEFAULT_BODIES["openrouter"])
def openrouter() -> Complete:
    from .openai_chat import complete
    return complete


@backend("anthropic", sdk="anthropic", key_env="ANTHROPIC_API_KEY", extra="anthropic")
def anthropic() -> Complete:
    from .anthropic_messages import complete
    return complete
