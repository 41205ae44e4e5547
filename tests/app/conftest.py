import pytest


@pytest.fixture(autouse=True)
def _in_tmp(in_tmp):
    """Every app and REPL test runs in an empty temp folder (records, saves and history land there)."""
    return in_tmp
