"""Routing from the environment, and a bad configuration failing at start with the variable named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jetjobs import App, EmbeddedServer
from jobsearch import draft
from jobsearch.jobs import DRAFT
from jobsearch.llm import LlmConfigError, Target, load_llm_settings
from tests.jobsearch.provider_servers import KEYS


def test_nothing_configured_means_offline() -> None:
    """With an empty environment both steps draft offline, which needs no key."""
    settings = load_llm_settings({})
    assert settings.routes == {
        "cover_letter": [Target("offline", "template-v2")],
        "connection_note": [Target("offline", "template-v2")],
    }


def test_each_step_is_routed_by_its_own_variables() -> None:
    """COVER_LETTER_PROVIDER=ollama and CONNECTION_NOTE_PROVIDER=anthropic, with models and fallbacks."""
    env = {
        "COVER_LETTER_PROVIDER": "ollama",
        "COVER_LETTER_MODEL": "qwen2.5:7b",
        "COVER_LETTER_FALLBACK": "offline",
        "CONNECTION_NOTE_PROVIDER": "Anthropic",
        "ANTHROPIC_API_KEY": KEYS["anthropic"],
        "ANTHROPIC_MODEL": "claude-sonnet-4-5",
        "LLM_FALLBACK": "ollama,offline",
        "OLLAMA_BASE_URL": "http://gpu-box:11434/",
    }
    settings = load_llm_settings(env)
    assert settings.routes["cover_letter"] == [
        Target("ollama", "qwen2.5:7b"),
        Target("offline", "template-v2"),
    ]
    assert settings.routes["connection_note"] == [
        Target("anthropic", "claude-sonnet-4-5"),
        Target("ollama", "llama3.2"),
        Target("offline", "template-v2"),
    ]
    assert settings.providers["ollama"].base_url == "http://gpu-box:11434"


def test_global_default_applies_to_steps_without_their_own() -> None:
    """LLM_PROVIDER and LLM_MODEL route every step that names nothing itself."""
    env = {"LLM_PROVIDER": "deepseek", "LLM_MODEL": "deepseek-reasoner", "DEEPSEEK_API_KEY": "k"}
    settings = load_llm_settings(env | {"CONNECTION_NOTE_PROVIDER": "offline"})
    assert settings.routes["cover_letter"] == [Target("deepseek", "deepseek-reasoner")]
    assert settings.routes["connection_note"] == [Target("offline", "template-v2")]


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"COVER_LETTER_PROVIDER": "anthropic"}, "ANTHROPIC_API_KEY"),
        ({"LLM_PROVIDER": "openai"}, "OPENAI_API_KEY"),
        ({"LLM_FALLBACK": "gemini,offline"}, "GEMINI_API_KEY"),
        ({"CONNECTION_NOTE_PROVIDER": "deepseek", "DEEPSEEK_API_KEY": "  "}, "DEEPSEEK_API_KEY"),
        ({"COVER_LETTER_PROVIDER": "opencode"}, "OPENCODE_API_KEY"),
    ],
)
def test_a_routed_provider_without_its_key_fails_naming_the_variable(
    env: dict[str, str], variable: str
) -> None:
    """The error names the key variable to set."""
    with pytest.raises(LlmConfigError, match=variable):
        load_llm_settings(env)


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"COVER_LETTER_PROVIDER": "gpt4"}, "COVER_LETTER_PROVIDER"),
        ({"LLM_FALLBACK": "ollama,claude"}, "LLM_FALLBACK"),
        ({"OLLAMA_CONCURRENCY": "many"}, "OLLAMA_CONCURRENCY"),
        ({"LLM_PROVIDER": "ollama", "OLLAMA_BASE_URL": "localhost:11434"}, "OLLAMA_BASE_URL"),
        ({"LLM_PRICES_FILE": "/nonexistent/prices.toml"}, "LLM_PRICES_FILE"),
        ({"LLM_MAX_RUN_WAIT": "-1"}, "LLM_MAX_RUN_WAIT"),
        ({"LLM_TRACE_CONTENT": "please"}, "LLM_TRACE_CONTENT"),
    ],
)
def test_bad_values_fail_naming_the_variable(env: dict[str, str], variable: str) -> None:
    """An unknown provider lists the choices; a bad number or URL names its variable."""
    with pytest.raises(LlmConfigError, match=variable) as caught:
        load_llm_settings(env)
    if "PROVIDER" in variable or "FALLBACK" in variable:
        assert "anthropic, openai, gemini, deepseek, opencode, ollama, offline" in str(caught.value)


def test_waits_and_content_tracing_have_defaults_and_can_be_set() -> None:
    """A call waits up to 300 s for a paused provider and traces no text, unless told otherwise."""
    default = load_llm_settings({})
    assert (default.max_run_wait, default.trace_content) == (300.0, False)
    chosen = load_llm_settings({"LLM_MAX_RUN_WAIT": "0", "LLM_TRACE_CONTENT": "1"})
    assert (chosen.max_run_wait, chosen.trace_content) == (0.0, True)


def test_pinning_a_provider_replaces_the_chain() -> None:
    """A job's `provider` pins the step to one configured provider; an unset one names its key."""
    settings = load_llm_settings({"OPENAI_API_KEY": "k", "LLM_FALLBACK": "ollama"})
    assert settings.chain("cover_letter", "openai") == [Target("openai", "gpt-4o-mini")]
    with pytest.raises(LlmConfigError, match="GEMINI_API_KEY"):
        settings.chain("cover_letter", "gemini")
    with pytest.raises(LlmConfigError, match="choose one of"):
        settings.chain("cover_letter", "bard")


def test_prices_can_be_overridden(tmp_path: Path) -> None:
    """LLM_PRICES_FILE replaces a built-in price and adds a provider-wide one."""
    prices = tmp_path / "prices.toml"
    prices.write_text(
        '["openai/gpt-4o-mini"]\ninput = 1.0\noutput = 2.0\n\n["deepseek/*"]\ninput = 0.5\noutput = 0.5\n'
    )
    table = load_llm_settings({"LLM_PRICES_FILE": str(prices)}).prices
    assert table.cost("openai", "gpt-4o-mini", 1_000_000, 1_000_000) == 3.0
    assert table.cost("deepseek", "anything", 2_000_000, 0) == 1.0
    assert table.cost("anthropic", "claude-haiku-4-5", 1_000_000, 0) == 1.0  # built-in kept
    assert table.cost("openai", "unknown-model", 10, 10) == 0.0


@pytest.mark.integration
def test_serve_draft_exits_2_naming_the_missing_key(nats_server: EmbeddedServer) -> None:
    """`jobsearch serve draft` with COVER_LETTER_PROVIDER=anthropic and no key stops at start."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_PROVIDER", "_FALLBACK"))}
    env |= {"NATS_URL": nats_server.url, "COVER_LETTER_PROVIDER": "anthropic", "JETJOBS_NAMESPACE": "tcli"}
    result = subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "serve", "draft"],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert b"ANTHROPIC_API_KEY" in result.stderr


def test_register_reads_the_environment_it_is_given() -> None:
    """register(app) with an empty environment registers the handler (offline); a bad one raises."""
    app = App("t", builtins=False)
    draft.register(app, env={})
    assert DRAFT in app.handlers
    with pytest.raises(LlmConfigError, match="OPENCODE_API_KEY"):
        draft.register(App("t2", builtins=False), env={"LLM_PROVIDER": "opencode"})
