"""Which models exist and how to reach them, from the files clembench users already have.

``--player NAME`` looks NAME up in clemcore's ``model_registry.json`` (a
list of entries ``{"model_name", "model_id", "backend", "model_config", ...}``)
in this order, first hit wins:

1. ``./model_registry.json`` (the current directory, as clemcore reads it)
2. ``~/.clemcore/model_registry.json`` (beside clemcore's key file)
3. ``$XDG_CONFIG_HOME/tui-adventure/model_registry.json`` (``~/.config/...``)
4. the registry packaged with clemcore, when clemcore is installed

Keys come from clemcore's ``key.json``: ``./key.json`` if it exists, else
``~/.clemcore/key.json`` (clemcore ignores the second when the first is
there), one entry per backend (``{"openai": {"api_key": ...}}``,
``{"openai_compatible": {"api_key": ..., "base_url": ...}}``). A backend
missing there falls back to the environment variable its entry in the
backend table names (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...).

Without any file, ``BACKEND:MODEL[@BASE_URL]`` names a model once, e.g.
``openai_compatible:qwen2.5:7b@http://127.0.0.1:11434/v1``.

Nothing here ever writes a key anywhere: ``ModelSpec.public()`` is what
records may show.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .backends import BACKENDS

NO_KEY_NEEDED = "none"   # local servers take any key, but the SDK insists on one
DEFAULT_GEN_ARGS = {"temperature": 0.0, "max_tokens": 300}   # clemcore's defaults
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 3
SECRET_FIELDS = {"api_key", "key", "authorization", "headers", "token"}


@dataclass(frozen=True)
class ModelSpec:
    name: str                          # the records' run directory and model_name
    backend: str
    model_id: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    organization: str | None = None
    config: dict = field(default_factory=dict)       # clemcore's model_config (extra_body, thinking_mode, ...)
    entry: dict = field(default_factory=dict)        # the registry entry as found (no secrets)
    source: str = ""
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    gen_args: dict = field(default_factory=lambda: dict(DEFAULT_GEN_ARGS))

    def public(self) -> dict:
        """The model spec as records show it (clemcore's model_spec): never the key."""
        out = {k: v for k, v in self.entry.items() if k.lower() not in SECRET_FIELDS and k != "lookup_source"}
        out.update({"model_name": self.name, "model_id": self.model_id, "backend": self.backend})
        if self.base_url and self.backend in BACKENDS and BACKENDS[self.backend].url_required:
            out["base_url"] = self.base_url
        return out

    def client_key(self) -> tuple:
        """What makes two players' clients interchangeable (same server, same key, same limits)."""
        return (self.backend, self.base_url, self.api_key, self.organization, self.timeout, self.max_retries)


# -- files ------------------------------------------------------------------------------
def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tui-adventure"


def clemcore_registry() -> Path | None:
    """clemcore's packaged model_registry.json, found without importing clemcore (its import is heavy)."""
    try:
        spec = importlib.util.find_spec("clemcore")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "backends" / "model_registry.json"
    return path if path.exists() else None


def registry_paths() -> list[Path]:
    paths = [Path.cwd() / "model_registry.json", Path.home() / ".clemcore" / "model_registry.json",
             config_dir() / "model_registry.json"]
    packaged = clemcore_registry()
    return paths + ([packaged] if packaged else [])


def read_entries() -> list[tuple[dict, str]]:
    """(entry, file) for every registry entry, in lookup order.

    A broken file of the user's is an error (silently skipping it would play
    some other model of the same name); clemcore's packaged file is ours to skip.
    """
    packaged = clemcore_registry()
    out: list[tuple[dict, str]] = []
    for path in registry_paths():
        if not path.exists():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            if path == packaged:
                continue
            raise ValueError(f"{path}: cannot read the model registry ({exc})") from None
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            raise ValueError(f"{path}: a model registry is a JSON list of model entries")
        out.extend((e, str(path)) for e in data if isinstance(e, dict) and e.get("model_name"))
    return out


def model_names(supported_only: bool = True) -> list[str]:
    """Names ``--player`` accepts from the registries, first occurrence first (for menus and errors)."""
    seen: list[str] = []
    try:
        entries = read_entries()
    except ValueError:
        return seen
    for e, _ in entries:
        if supported_only and e.get("backend") not in BACKENDS:
            continue
        if e["model_name"] not in seen:
            seen.append(e["model_name"])
    return seen


def _number(entry: dict, key: str, default, spec, kind):
    """A registry entry's number (``timeout: null`` or ``"5s"`` is a clear message, not a traceback)."""
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"model {spec!r}: {key} must be a number{' of seconds' if key == 'timeout' else ''}"
                         f" >= 0 in its model_registry.json entry, not {value!r}")
    return kind(value)


def load_keys() -> tuple[dict, Path | None]:
    """key.json as clemcore finds it: the current directory's if it exists, else ~/.clemcore's."""
    for path in (Path.cwd() / "key.json", Path.home() / ".clemcore" / "key.json"):
        if path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ValueError(f"{path}: cannot read the key file ({exc})") from None
            if not isinstance(data, dict):
                raise ValueError(f"{path}: a key file is a JSON object with one entry per backend")
            return data, path
    return {}, None


def credentials(backend: str) -> dict:
    """api_key, base_url, organization for a backend: key.json first, then the environment."""
    keys, path = load_keys()
    entry = keys.get(backend) or {}
    if not isinstance(entry, dict):
        raise ValueError(f'{path}: the entry for {backend} must be a mapping such as {{"api_key": "..."}},'
                         f" not a {type(entry).__name__}")
    key = entry.get("api_key")
    key = key if isinstance(key, str) and key.strip() else None
    known = BACKENDS[backend]
    return {"api_key": key or os.environ.get(known.key_env, "") or None,
            "base_url": entry.get("base_url") or (os.environ.get(known.url_env, "") if known.url_env else "") or None,
            "organization": entry.get("organization") or entry.get("organisation")}


# -- specs ---------------------------------------------------------------------------------
_ONE_OFF = re.compile(r"^(?P<backend>[a-z_]+):(?P<model>.+?)(?:@(?P<url>https?://\S+))?$")


def parse_one_off(spec: str) -> tuple[str, str, str | None] | None:
    """``BACKEND:MODEL[@BASE_URL]`` -> (backend, model id, url); None when ``spec`` is not that form."""
    m = _ONE_OFF.match(spec.strip())
    if not m or m.group("backend") not in BACKENDS:
        return None
    return m.group("backend"), m.group("model"), m.group("url")


def run_name(model_id: str) -> str:
    """A model id as a directory name (``meta-llama/llama-3.1-8b`` would nest)."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", model_id).strip("-") or "model"


def find(spec: str) -> tuple[dict, str] | None:
    one_off = parse_one_off(spec)
    if one_off:
        backend, model, url = one_off
        entry = {"model_name": run_name(model), "model_id": model, "backend": backend}
        if url:
            entry["base_url"] = url
        return entry, "one-off"
    for entry, source in read_entries():
        if entry.get("model_name") == spec:
            return dict(entry), source
    return None


def resolve(spec: str, **overrides) -> ModelSpec:
    """The model ``spec`` names, with its key; ValueError saying what is available when there is none."""
    found = find(spec)
    if found is None:
        raise ValueError(unknown_message(spec))
    entry, source = found
    backend = entry.get("backend")
    if backend not in BACKENDS:
        raise ValueError(f"model {spec!r} ({source}) uses backend {backend!r}, which tui-adventure does not"
                         f" support (supported: {', '.join(BACKENDS)})")
    known = BACKENDS[backend]
    cred = credentials(backend)
    base_url = entry.get("base_url") or cred["base_url"] or known.default_url
    api_key = cred["api_key"]
    if known.url_required and not base_url:
        raise ValueError(f"model {spec!r}: an {backend} model needs a base_url (in its registry entry,"
                         f' in key.json as {{"{backend}": {{"base_url": ...}}}}, in'
                         f" {known.url_env}, or as {backend}:MODEL@URL)")
    if not api_key and known.key_required:
        keys_at = Path.cwd() / "key.json", Path.home() / ".clemcore" / "key.json"
        raise ValueError(f"model {spec!r} needs an API key for {backend}: put "
                         f'{{"{backend}": {{"api_key": "..."}}}} in {keys_at[0]} or {keys_at[1]},'
                         f" or set {known.key_env}")
    api_key = api_key or NO_KEY_NEEDED
    config = entry.get("model_config") if isinstance(entry.get("model_config"), dict) else {}
    gen_args = dict(DEFAULT_GEN_ARGS)
    gen_args.update({k: entry[k] for k in ("temperature", "max_tokens") if k in entry})
    kwargs = dict(name=entry["model_name"], backend=backend, model_id=str(entry.get("model_id") or entry["model_name"]),
                  base_url=base_url, api_key=api_key, organization=cred["organization"], config=config,
                  entry={k: v for k, v in entry.items() if k.lower() not in SECRET_FIELDS}, source=source,
                  timeout=_number(entry, "timeout", DEFAULT_TIMEOUT, spec, float),
                  max_retries=_number(entry, "max_retries", DEFAULT_RETRIES, spec, int), gen_args=gen_args)
    kwargs.update({k: v for k, v in overrides.items() if v is not None})
    return ModelSpec(**kwargs)


def unknown_message(spec: str) -> str:
    names = model_names()
    found_in = [str(p) for p in registry_paths() if p.exists()]
    if names:
        shown = ", ".join(names[:30]) + (f" and {len(names) - 30} more" if len(names) > 30 else "")
        models = f"a model from model_registry.json ({shown}; read from {', '.join(found_in)})"
    else:
        models = (f"a model from model_registry.json (none found: looked in {Path.cwd() / 'model_registry.json'},"
                  f" {Path.home() / '.clemcore' / 'model_registry.json'} and {config_dir() / 'model_registry.json'})")
    return (f"unknown player {spec!r}: use human, oracle, random[:seed], scripted:FILE, replay:EPISODE_DIR, "
            f"{models}, or BACKEND:MODEL[@BASE_URL] with BACKEND one of {', '.join(BACKENDS)}")
