"""A machine configured the way a clembench user configures a model: one registry entry, one key."""

import pytest

from fake_llm_server import clean_config, write_json

SECRET = "sk-test-secret-4711"


@pytest.fixture
def config(monkeypatch, tmp_path, server):
    """A registry entry ``fake-gpt`` and its key, the way a clembench user has them."""
    cwd, _ = clean_config(monkeypatch, tmp_path)
    write_json(cwd / "model_registry.json", [{"model_name": "fake-gpt", "model_id": "qwen-test",
                                              "backend": "openai_compatible"}])
    write_json(cwd / "key.json", {"openai_compatible": {"api_key": SECRET, "base_url": server.url}})
    return cwd
