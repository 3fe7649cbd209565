"""The providers a test runs on: the Messages API, an OpenAI-compatible server's Chat Completions
and OpenAI's Responses API, each against its strict local stand-in (harness/localapi/).

    @pytest.fixture(scope="module", params=PROVIDERS)
    def wire(request): ...                       # a `Wire`: its server, its model, its client
    client = wire.client(attempts_max=2)         # what the owner's World.provider would build
    wire.config_toml()                           # the config.toml lines that pick it
"""

from dataclasses import dataclass
from typing import Any

from harness.calls.client import Client, ClientSettings
from harness.calls.openai_client import OpenAIProvider
from harness.localapi.openai_api import OpenAILocalAPI
from harness.localapi.server import LocalAPI

PROVIDERS = ("anthropic", "openai-chat", "openai-responses")
MODELS = {"anthropic": "claude-sonnet-4-6", "openai-chat": "local/qwen3-coder", "openai-responses": "openai/gpt-5.5"}


def server_for(kind: str) -> LocalAPI:
    return LocalAPI() if kind == "anthropic" else OpenAILocalAPI(kind)


@dataclass
class Wire:
    kind: str
    api: Any

    @property
    def model(self) -> str:
        return MODELS[self.kind]

    def client(self, *, sleep: Any = None, random: Any = None, **settings: Any) -> Any:
        """`sleep` and `random`: the retry policy's waits and jitter, for a test to see them."""
        settings.setdefault("backoff_first_seconds", 0.01)
        chosen = ClientSettings(api_key="test-key", base_url=self.api.base_url, **settings)
        injected = {name: value for name, value in (("sleep", sleep), ("random", random)) if value is not None}
        if self.kind == "anthropic":
            return Client(chosen, **injected)
        name = self.model.partition("/")[0]
        return OpenAIProvider(chosen, api=self.kind, name=name, key_env="TEST_KEY", **injected)

    def config_toml(self) -> str:
        """The config that picks this provider for the turns and the compactor both."""
        if self.kind == "anthropic":
            return f'model = "{self.model}"\n[memory]\nmodel = "claude-haiku-4-5"\n'
        name, _, model = self.model.partition("/")
        return (f'model = "{self.model}"\n[memory]\nmodel = "{self.model}"\n'
                f'[providers.{name}]\napi = "{self.kind}"\nbase_url = "{self.api.base_url}"\n'
                f'key_env = "TEST_OPENAI_KEY"\n')


def is_compaction(body: Any) -> bool:
    """A compaction request on any wire: tools sent for the shared prefix, none to be called."""
    return isinstance(body, dict) and body.get("tool_choice") in ({"type": "none"}, "none")


def tool_results(body: dict, kind: str) -> list[tuple[str, str]]:
    """The (call id, result text) pairs a request sends back, in its wire's shape and order."""
    if kind == "anthropic":
        return [(block["tool_use_id"], "".join(part["text"] for part in block["content"] if part["type"] == "text"))
                for message in body["messages"] if isinstance(message["content"], list)
                for block in message["content"] if block.get("type") == "tool_result"]
    if kind == "openai-chat":
        return [(message["tool_call_id"], message["content"]) for message in body["messages"]
                if message["role"] == "tool"]
    return [(item["call_id"], item["output"]) for item in body["input"] if item.get("type") == "function_call_output"]
