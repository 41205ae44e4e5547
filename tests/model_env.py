"""For the model tests: a machine with no model configuration of its own, a fake model's registry
entry and key, and ``async def`` tests run in a loop of their own (the fake server is in
``fake_llm_server.py``)."""

from __future__ import annotations

import asyncio
import json

MODEL_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "OPENAI_COMPATIBLE_API_KEY",
             "OPENAI_COMPATIBLE_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENAI_ORG_ID",
             "OPENAI_PROJECT_ID", "XDG_CONFIG_HOME")


def clean_config(monkeypatch, tmp_path):
    """A fresh current directory and home, and none of the developer's keys or registries.

    Returns (cwd, home); write ``model_registry.json`` / ``key.json`` into either.
    """
    from tui_adventure.players.backends.learned import forget

    forget()   # what servers of earlier tests refused is not this test's business
    cwd, home = tmp_path / "cwd", tmp_path / "home"
    cwd.mkdir()
    (home / ".clemcore").mkdir(parents=True)
    for name in MODEL_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(cwd)
    return cwd, home


MODEL_KEY = "sk-test-secret-4711"   # the key of the fake-gpt entry: records must never hold it


def configure_fake_gpt(monkeypatch, tmp_path, server):
    """A registry entry ``fake-gpt`` and its key.json entry pointing at ``server``, the way a clembench
    user has them; returns the current folder."""
    cwd, _ = clean_config(monkeypatch, tmp_path)
    write_json(cwd / "model_registry.json", [{"model_name": "fake-gpt", "model_id": "qwen-test",
                                              "backend": "openai_compatible"}])
    write_json(cwd / "key.json", {"openai_compatible": {"api_key": MODEL_KEY, "base_url": server.url}})
    return cwd


def write_json(path, data) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


def in_loop(test):
    """Run an ``async def`` test in a loop of its own, closing the shared model clients at its end.

    Plain ``asyncio.run`` rather than a pytest plugin, so these tests need nothing but pytest.
    """
    import functools

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        from tui_adventure.players.backends.clients import close_clients

        async def main():
            try:
                return await test(*args, **kwargs)
            finally:
                await close_clients()
        return asyncio.run(main())
    return wrapper
