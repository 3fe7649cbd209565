"""The Messages API's shapes a test expects Ever to send, written from the API's documentation
(a tool is `{name, description, input_schema}`; a system prompt is text blocks; a 5-minute cache
mark is `{"type": "ephemeral"}`), apart from the provider that builds them."""

MARK = {"type": "ephemeral"}


def tools_sent(tools) -> list[dict]:
    """The registry's tools as the API takes them."""
    return [{"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
            for tool in tools]


def system_sent(texts) -> list[dict]:
    """The system prompt's texts as blocks, the mark on the last [C2]."""
    blocks = [{"type": "text", "text": text} for text in texts]
    blocks[-1] = dict(blocks[-1], cache_control=MARK)
    return blocks
