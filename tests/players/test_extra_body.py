"""A registry entry per server: its model_config.extra_body reaches that server with every request.

vLLM, llama.cpp and SGLang take sampling fields the OpenAI API lacks (top_k,
repetition_penalty, guided decoding) in the request body; clemcore's
registry keeps them in ``model_config.extra_body``. Two entries for two
servers (one per node) must each send their own.
"""

from fake_llm_server import FakeLLMServer
from model_env import MODEL_KEY, in_loop, write_json
from tui_adventure.gamemaster.episode import Episode, play_turn
from tui_adventure.players import make_player


@in_loop
async def test_each_servers_entry_sends_its_own_extra_body(monkeypatch, tmp_path, mini):
    from model_env import clean_config

    cwd, _ = clean_config(monkeypatch, tmp_path)
    with FakeLLMServer() as node1, FakeLLMServer() as node2:
        write_json(cwd / "model_registry.json", [
            {"model_name": "qwen-node1", "model_id": "qwen", "backend": "openai_compatible",
             "base_url": node1.url, "model_config": {"extra_body": {"top_k": 1, "repetition_penalty": 1.05}}},
            {"model_name": "qwen-node2", "model_id": "qwen", "backend": "openai_compatible",
             "base_url": node2.url, "model_config": {"extra_body": {"top_k": 40}}}])
        write_json(cwd / "key.json", {"openai_compatible": {"api_key": MODEL_KEY, "base_url": node1.url}})
        for name, node, expected in (("qwen-node1", node1, {"top_k": 1, "repetition_penalty": 1.05}),
                                     ("qwen-node2", node2, {"top_k": 40})):
            player = make_player(name, mini, "text", timeout=5.0, max_retries=1, retry_delay=0.01)
            await play_turn(Episode(mini), player)
            assert node.requests, f"{name} never reached its own server"
            body = node.requests[-1].body
            assert {k: body.get(k) for k in expected} == expected
            assert "top_k" not in body.get("extra_body", {})   # merged into the body, as the SDK sends it
