"""``--player MODEL``: clemcore's model_registry.json and key.json, the environment, and the one-off form."""

import pytest

from clemcore_check import require_clemcore
from model_env import clean_config, write_json
from tui_adventure.players import make_player, registry

LOCAL = {"model_name": "local-qwen", "model_id": "qwen2.5:7b", "backend": "openai_compatible",
         "model_config": {"extra_body": {"top_k": 1}}}
GPT = {"model_name": "gpt-test", "model_id": "gpt-4o-2024-08-06", "backend": "openai"}


@pytest.fixture
def dirs(monkeypatch, tmp_path):
    return clean_config(monkeypatch, tmp_path)


def test_a_registry_name_just_works_with_clembench_files(dirs, mini):
    cwd, home = dirs
    write_json(cwd / "model_registry.json", [LOCAL, GPT])
    write_json(home / ".clemcore" / "key.json", {
        "openai": {"api_key": "sk-home", "organisation": "org-1"},
        "openai_compatible": {"api_key": "local", "base_url": "http://127.0.0.1:9/v1"}})
    player = make_player("local-qwen", mini)
    assert (player.name, player.backend, player.spec.model_id) == ("local-qwen", "openai_compatible", "qwen2.5:7b")
    assert player.spec.base_url == "http://127.0.0.1:9/v1"
    assert player.spec.config == {"extra_body": {"top_k": 1}}
    assert player.gen_args == {"temperature": 0.0, "max_tokens": 300}
    gpt = make_player("gpt-test", mini, mode="tools")
    assert (gpt.spec.api_key, gpt.spec.organization, gpt.mode) == ("sk-home", "org-1", "tools")


def test_the_current_directory_comes_first(dirs):
    cwd, home = dirs
    write_json(home / ".clemcore" / "model_registry.json", [{**GPT, "model_id": "from-home"}])
    write_json(cwd / "model_registry.json", [{**GPT, "model_id": "from-cwd"}])
    write_json(home / ".clemcore" / "key.json", {"openai": {"api_key": "sk-home"}})
    write_json(cwd / "key.json", {"openai": {"api_key": "sk-cwd"}})
    spec = registry.resolve("gpt-test")
    assert (spec.model_id, spec.api_key) == ("from-cwd", "sk-cwd")
    # like clemcore, a key.json in the current directory hides the home one entirely
    write_json(cwd / "key.json", {"anthropic": {"api_key": "other"}})
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        registry.resolve("gpt-test")


def test_the_users_config_dir_is_read_too(dirs, tmp_path):
    xdg = tmp_path / "xdg" / "tui-adventure"
    xdg.mkdir(parents=True)
    write_json(xdg / "model_registry.json", [{**LOCAL, "base_url": "http://127.0.0.1:8/v1"}])
    spec = registry.resolve("local-qwen")
    assert spec.base_url == "http://127.0.0.1:8/v1"
    assert spec.api_key == registry.NO_KEY_NEEDED     # local servers need no key
    assert "local-qwen" in registry.model_names()


def test_environment_variables_fill_in_missing_keys(dirs, monkeypatch):
    cwd, _ = dirs
    write_json(cwd / "model_registry.json", [GPT, {"model_name": "claude-test", "model_id": "claude-x",
                                                   "backend": "anthropic"},
                                             {"model_name": "router-test", "model_id": "meta-llama/llama-3.3-70b",
                                              "backend": "openrouter"}])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ant-env")
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-env")
    assert registry.resolve("gpt-test").api_key == "sk-env"
    assert registry.resolve("claude-test").api_key == "ant-env"
    router = registry.resolve("router-test")
    assert router.api_key == "or-env" and router.base_url.endswith("/api/v1")
    write_json(cwd / "key.json", {"openai": {"api_key": "sk-file"}})
    assert registry.resolve("gpt-test").api_key == "sk-file"   # the clembench file wins


def test_one_off_models_need_no_files(dirs, mini):
    player = make_player("openai_compatible:qwen2.5:7b@http://127.0.0.1:8000/v1", mini)
    assert (player.backend, player.spec.model_id, player.spec.base_url) == (
        "openai_compatible", "qwen2.5:7b", "http://127.0.0.1:8000/v1")
    assert player.name == "qwen2.5-7b"         # a directory name, in the records' run directory
    assert registry.parse_one_off("openrouter:meta-llama/llama-3.1-8b") == (
        "openrouter", "meta-llama/llama-3.1-8b", None)
    assert registry.run_name("meta-llama/llama-3.1-8b") == "meta-llama-llama-3.1-8b"
    assert registry.parse_one_off("scripted:replies.txt") is None


def test_unknown_names_say_what_is_available(dirs, mini):
    cwd, _ = dirs
    write_json(cwd / "model_registry.json", [LOCAL, GPT, {"model_name": "hf-model", "backend": "huggingface_local"}])
    with pytest.raises(ValueError) as err:
        make_player("gpt-5-turbo", mini)
    text = str(err.value)
    for needed in ("'gpt-5-turbo'", "oracle", "local-qwen", "gpt-test", "BACKEND:MODEL[@BASE_URL]",
                   "openai_compatible", str(cwd / "model_registry.json")):
        assert needed in text
    assert "hf-model" not in registry.model_names()
    with pytest.raises(ValueError, match="does not support"):
        make_player("hf-model", mini)


def test_missing_configuration_is_explained(dirs, mini):
    cwd, home = dirs
    write_json(cwd / "model_registry.json", [GPT, {**LOCAL}])
    with pytest.raises(ValueError) as err:
        make_player("gpt-test", mini)
    assert "OPENAI_API_KEY" in str(err.value) and str(home / ".clemcore" / "key.json") in str(err.value)
    with pytest.raises(ValueError, match="base_url"):
        make_player("local-qwen", mini)
    with pytest.raises(ValueError, match="mode"):
        make_player("openai_compatible:m@http://127.0.0.1:1/v1", mini, mode="chat")
    (cwd / "model_registry.json").write_text("[{broken", encoding="utf-8")
    with pytest.raises(ValueError, match="model_registry.json"):
        make_player("gpt-test", mini)


def test_keys_never_show(dirs):
    cwd, _ = dirs
    write_json(cwd / "model_registry.json", [{**GPT, "api_key": "sk-in-the-entry"}])
    write_json(cwd / "key.json", {"openai": {"api_key": "sk-secret-123"}})
    spec = registry.resolve("gpt-test")
    assert spec.api_key == "sk-secret-123"
    shown = repr(spec) + str(spec.public()) + str(spec.entry)
    assert "sk-secret-123" not in shown and "sk-in-the-entry" not in shown


def test_clemcores_own_registry_is_the_last_resort(dirs, monkeypatch):
    require_clemcore()
    packaged = registry.clemcore_registry()
    import json

    entry = next(e for e in json.loads(packaged.read_text()) if e.get("backend") == "openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    spec = registry.resolve(entry["model_name"])
    assert (spec.model_id, spec.source) == (entry["model_id"], str(packaged))
