"""A machine configured the way a clembench user configures a model: one registry entry, one key."""

import pytest

from model_env import configure_fake_gpt


@pytest.fixture
def config(monkeypatch, tmp_path, server):
    return configure_fake_gpt(monkeypatch, tmp_path, server)
