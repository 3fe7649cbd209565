"""The models the local Messages API serves, and its `GET /v1/models` as Anthropic's answers it.

By default it serves the capability table's models (harness/calls/models.py), retired ones
included as the real catalogue keeps them ("It remains in the catalogue as the historical record
of its retirement"); a test adds models only the API knows, or the API's own figures for a model
the table knows, with `LocalAPI(models=[...])`.

The answer follows the Models API reference (api/python/models, "List Models"): newest first,
`limit` "Defaults to `20`. Ranges from `1` to `1000`", cursors `after_id` / `before_id`, and a
page `{"data", "first_id", "last_id", "has_more"}`; each entry a ModelInfo (`id`, `type`
"model", `display_name`, `created_at`, `lifecycle`, `max_input_tokens`, `max_tokens`,
`capabilities`), as SDK 2.14's `anthropic.types.ModelInfo` has its fields. `GET /v1/models/{id}`
answers one, or a 404 `not_found_error`; an alias the table lists answers its model.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from harness.calls.models import ALIASES, EFFORTS, MODELS, RETIRED, Model

JSON = dict[str, Any]
LIMIT_DEFAULT = 20
LIMIT_MAX = 1000
EPOCH = "1970-01-01T00:00:00Z"  # ModelInfo.created_at: "May be set to an epoch value if the
# release date is unknown"


class Catalogue:
    """The models a server answers for, newest first: `extra` (a test's) before the table's."""

    def __init__(self, extra: Iterable[Model] = ()) -> None:
        self.models: dict[str, Model] = {}
        for model in extra:
            self.models[model.id] = model
        for model_id, model in MODELS.items():
            self.models.setdefault(model_id, model)

    def find(self, model_id: str) -> Model | None:
        return self.models.get(model_id) or self.models.get(ALIASES.get(model_id, ""))

    def info(self, model: Model) -> JSON:
        return model_info(model)

    def page(self, query: Mapping[str, str]) -> JSON:
        """One page of the listing; ValueError with the API's sentence for a bad `limit`."""
        raw = query.get("limit", str(LIMIT_DEFAULT))
        if not raw.isdigit() or not 1 <= int(raw) <= LIMIT_MAX:
            raise ValueError(f"limit: Input should be greater than or equal to 1 and less than or equal "
                             f"to {LIMIT_MAX}")
        limit = int(raw)
        ids = list(self.models)
        if "after_id" in query:
            start = ids.index(query["after_id"]) + 1 if query["after_id"] in ids else len(ids)
            chosen = ids[start:start + limit]
            has_more = start + limit < len(ids)
        elif "before_id" in query:
            end = ids.index(query["before_id"]) if query["before_id"] in ids else 0
            chosen = ids[max(0, end - limit):end]
            has_more = end - limit > 0
        else:
            chosen = ids[:limit]
            has_more = limit < len(ids)
        data = [model_info(self.models[model_id]) for model_id in chosen]
        return {"data": data, "first_id": chosen[0] if chosen else None,
                "last_id": chosen[-1] if chosen else None, "has_more": has_more}


def supported(flag: bool) -> JSON:
    return {"supported": bool(flag)}


def model_info(model: Model) -> JSON:
    """The ModelInfo the Models API gives for `model`."""
    thinking_on = model.adaptive or model.budget
    effort = {level: supported(level in model.efforts) for level in EFFORTS}
    no = supported(False)
    lifecycle = "retired" if model.status == RETIRED else model.status
    return {
        "id": model.id, "type": "model", "display_name": model.display_name or model.id,
        "created_at": EPOCH, "lifecycle": lifecycle,
        "deprecated_at": None if lifecycle == "active" else f"{model.retired_on or '1970-01-01'}T00:00:00Z",
        "retires_at": f"{model.retired_on}T00:00:00Z" if lifecycle == "deprecated" and model.retired_on else None,
        "line": None,
        "max_input_tokens": model.context_window, "max_tokens": model.output_cap,
        "capabilities": {
            "batch": no, "citations": no, "code_execution": no, "pdf_input": no,
            "structured_outputs": no,
            "context_management": {"supported": False, "clear_thinking_20251015": None,
                                   "clear_tool_uses_20250919": None, "compact_20260112": None},
            "server_tools": {"supported": False},
            "effort": {"supported": bool(model.efforts), **effort},
            "image_input": supported(model.image_input),
            "thinking": {"supported": thinking_on, "types": {
                "adaptive": supported(model.adaptive), "enabled": supported(model.budget),
                # "True on a model that does not support thinking"
                "disabled": supported(model.can_disable or not thinking_on),
                "between_tools": supported(model.between_tools)}},
        },
    }
