"""Bugs planted in the OpenAI providers (harness/calls/openai.py, harness/calls/openai_client.py),
the OpenAI stand-ins (harness/localapi/openai_api.py) and the costs per provider, each of which a
test that `make test` runs must catch.

Strategy: one mutant per provider rule that matters [H26] [H27] [H28] [H29]: a cache mark sent to
an OpenAI server, a tool result out of order, a finish reason mapped wrong (on each OpenAI API),
the cached tokens not read from the wire's own field, a `prompt_cache_key` that changes from call
to call, a stand-in that lets a tool message answer no call, a priced provider charged nothing,
and an unpriced model shown a dollar figure.
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    """One pytest test: the judge needs the test it names."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


PROVIDERS = "tests/calls/test_providers.py::"
TURN = PROVIDERS + "test_a_turn_runs_a_tool_and_sends_its_result_back_in_the_wires_own_shape"
STOPS = PROVIDERS + "test_each_wires_stop_reasons_come_back_as_the_same_outcomes"
OPENAI = "tests/calls/test_openai_models.py::"
RETRIES = PROVIDERS + "test_every_wire_waits_as_the_one_retry_policy_says_through_429_529_500_and_an_error_mid_stream"
LOCAL = "tests/calls/test_local_server_windows.py::"
WINDOW_RUN_AT = LOCAL + "test_the_window_is_the_one_the_server_runs_at_over_the_trained_length_and_the_config"
COUNTED = LOCAL + "test_a_body_whose_bytes_pass_the_window_is_counted_by_the_server_and_sent_where_it_counts"
OLLAMA_NOT_LOADED = LOCAL + ("test_an_ollama_model_not_loaded_has_its_modelfiles_num_ctx_else_its_trained_length"
                             "_said_to_be_one")
SERVERS = "tests/localapi/test_local_servers.py::"
CACHE = PROVIDERS + "test_a_second_call_on_the_same_prefix_reads_it_from_the_cache_as_each_wire_reports_it"

MUTANTS = [
    Mutant(
        name="openai_cache_mark_sent",
        path="harness/calls/openai.py",
        old='                parts.append({"type": "text", "text": block["text"]})\n',
        new='                parts.append({"type": "text", "text": block["text"], "cache_control": {"type": "ephemeral"}})\n',
        check=test(TURN + "[openai-chat]"),
        note="Anthropic's cache mark sent on the Chat Completions wire, which refuses it",
    ),
    Mutant(
        name="openai_tool_result_out_of_order",
        path="harness/calls/openai.py",
        old='                out.append({"role": "tool", "tool_call_id": block["tool_use_id"], "content": text})\n',
        new='                out.insert(len(out) - 1, {"role": "tool", "tool_call_id": block["tool_use_id"], "content": text})\n',
        check=test(TURN + "[openai-chat]"),
        note="a tool's result sent before the call it answers",
    ),
    Mutant(
        name="responses_tool_result_after_the_users_text",
        path="harness/calls/openai.py",
        old='                out.append({"type": "function_call_output", "call_id": block["tool_use_id"], "output": text})\n',
        new='                out.insert(0, {"type": "function_call_output", "call_id": block["tool_use_id"], "output": text})\n',
        check=test(TURN + "[openai-responses]"),
        note="a function call's output sent before the call, at the input's start",
    ),
    Mutant(
        name="chat_finish_length_mapped_whole",
        path="harness/calls/openai.py",
        old='    "length": Stop.LENGTH,\n',
        new='    "length": Stop.WHOLE,\n',
        check=test(STOPS + "[openai-chat-max_tokens-Stop.LENGTH]"),
        note="a reply cut at its token cap taken as whole",
    ),
    Mutant(
        name="responses_incomplete_mapped_whole",
        path="harness/calls/openai.py",
        old='    "max_output_tokens": Stop.LENGTH,\n',
        new='    "max_output_tokens": Stop.WHOLE,\n',
        check=test(STOPS + "[openai-responses-max_tokens-Stop.LENGTH]"),
        note="an incomplete Responses reply taken as whole",
    ),
    Mutant(
        name="chat_cached_tokens_not_read",
        path="harness/calls/openai.py",
        old='    cached = _field(details, "cached_tokens") or 0\n    written = _field(details, "cache_write_tokens") or 0\n'
            '    prompt = _field(usage, "prompt_tokens") or 0\n',
        new='    cached = 0\n    written = _field(details, "cache_write_tokens") or 0\n'
            '    prompt = _field(usage, "prompt_tokens") or 0\n',
        check=test(CACHE + "[openai-chat]"),
        note="Chat Completions' cached tokens ignored: every call looks uncached",
    ),
    Mutant(
        name="prompt_cache_key_per_call",
        path="harness/calls/openai_client.py",
        old="        shared = json.dumps([list(call.system), [tool.name for tool in call.tools]]).encode(\"utf-8\")\n",
        new="        shared = json.dumps([list(call.system), len(call.messages)]).encode(\"utf-8\")\n",
        check=test(CACHE + "[openai-responses]"),
        note="the prompt_cache_key changes from call to call, so a turn's calls land on other cache machines",
    ),
    Mutant(
        name="standin_lets_a_tool_message_answer_no_call",
        path="harness/localapi/openai_api.py",
        old="                awaited.remove(call_id)\n            else:\n",
        new="                awaited.remove(call_id)\n            elif False:\n",
        check=test("tests/localapi/test_openai_api.py::"
                   "test_chat_refuses_what_chat_completions_refuses[change3-preceeding]"),
        note="the Chat stand-in takes a tool message that answers no call",
    ),
    Mutant(
        name="provider_prices_ignored",
        path="harness/calls/usage.py",
        old="    if slash and rest and name in PROVIDER_PRICES:\n",
        new="    if False:\n",
        check=test("tests/calls/test_provider_costs.py::"
                   "test_a_priced_provider_is_charged_its_prices_and_an_unpriced_one_shows_tokens"),
        note="a provider's configured prices never used: its calls unpriced",
    ),
    Mutant(
        name="unpriced_shown_as_dollars",
        path="harness/owner/owner.py",
        old='        cost = ("-" if last is None else f"{last.tokens:,} tokens, unpriced" if last.cost_e8 is None\n',
        new='        cost = ("-" if last is None else "$0.0000" if last.cost_e8 is None\n',
        check=test("tests/calls/test_usage.py::test_the_status_line_shows_the_view_the_cache_share_and_the_last_calls_cost"),
        note="an unpriced model's turn shown as costing $0",
    ),
    Mutant(
        name="openai_window_from_the_table",
        path="harness/calls/capabilities.py",
        old="        fields[\"context_window\"] = window  # the server's, over the table's\n",
        new="        pass\n",
        check=test(OPENAI + "test_the_servers_window_is_believed_over_the_tables[openai-chat]"),
        note="an OpenAI wire's window taken from the table when the server's list said otherwise [H30]",
    ),
    Mutant(
        name="openai_listed_window_unused",
        path="harness/calls/models.py",
        old="    listed = _PROVIDER_LISTED.get(f\"{provider}/{model_id}\")\n",
        new="    listed = None\n",
        check=test(OPENAI + "test_a_request_past_a_listed_window_is_refused_in_one_sentence_before_it_reaches_the_model"
                            "[openai-responses]"),
        note="a model only the server lists checked against the smallest known window [H30]",
    ),
    Mutant(
        name="openai_effort_let_through",
        path="harness/calls/models.py",
        old="    if effort is None or (isinstance(effort, str) and effort in model.efforts):\n",
        new="    if True:\n",
        check=test(OPENAI + "test_an_effort_the_model_lacks_is_refused_before_any_call[openai-responses-max]"),
        note="an effort the model lacks sent, for the server to refuse [H31]",
    ),
    Mutant(
        name="openai_off_sends_no_effort",
        path="harness/calls/models.py",
        old="        return \"none\" if \"none\" in model.efforts else None\n",
        new="        return None\n",
        check=test(OPENAI + "test_a_thinking_setting_goes_out_as_the_wires_effort_where_the_model_takes_it"
                            "[openai-chat-off-none]"),
        note="thinking off leaves a GPT-5.5 reasoning at its default instead of effort none [H31]",
    ),
    Mutant(
        name="standin_takes_any_effort",
        path="harness/localapi/openai_api.py",
        old="    if not model.efforts:\n        raise ApiError(400,",
        new="    if not model.efforts:\n        return\n    if False:\n        raise ApiError(400,",
        check=test("tests/localapi/test_openai_api.py::test_an_effort_the_model_does_not_take_is_refused_as_openai_"
                   "refuses_it[openai-chat-no-reasoning]"),
        note="the stand-ins take a reasoning effort on a model that does not reason",
    ),
    Mutant(
        name="standin_takes_a_prompt_past_the_window",
        path="harness/localapi/openai_api.py",
        old="    if tokens + (cap or 0) > model.context_window:\n",
        new="    if False:\n",
        check=test("tests/localapi/test_openai_api.py::test_a_prompt_and_cap_past_the_window_is_refused_and_"
                   "responses_counts_a_prompt[openai-responses]"),
        note="the stand-ins take a prompt past the model's window",
    ),
    Mutant(
        name="retry_after_ignored",
        path="harness/calls/retry.py",
        old="        if trouble.retry_after_seconds is not None:\n",
        new="        if False:\n",
        check=test(RETRIES + "[openai-responses]"),
        note="the server's retry-after ignored, on every wire at once: the one policy [C13]",
    ),
    Mutant(
        name="backoff_not_doubled",
        path="harness/calls/retry.py",
        old="s.backoff_first_seconds * (2 ** (failures - 1))",
        new="s.backoff_first_seconds",
        check=test(RETRIES + "[anthropic]"),
        note="the backoff stays at its first wait however often the server fails [C13]",
    ),
    Mutant(
        name="llama_window_its_trained_length",
        path="harness/calls/openai_client.py",
        old="""            return await self.llama_windows(ids, props)\n""",
        new="""            return {}\n""",
        check=test(WINDOW_RUN_AT + "[llama.cpp]"),
        note="llama.cpp's /props n_ctx ignored: the window is the length the model was trained to [H36]",
    ),
    Mutant(
        name="config_window_over_the_servers",
        path="harness/calls/models.py",
        old="""    listed = _PROVIDER_LISTED.get(f"{provider}/{model_id}")\n    if listed is not None:\n""",
        new="""    listed = _PROVIDER_LISTED.get(f"{provider}/{model_id}")\n    if listed is not None and not window:\n""",
        check=test(WINDOW_RUN_AT + "[vllm]"),
        note="a window taken from config.toml when the server said otherwise [H30] [H36]",
    ),
    Mutant(
        name="ollama_trained_length_over_num_ctx",
        path="harness/calls/openai_client.py",
        old="""        if name == "num_ctx" and value.strip().isdigit() and int(value) > 0:\n""",
        new="""        if False:\n""",
        check=test(OLLAMA_NOT_LOADED),
        note="Ollama's num_ctx ignored for the length the model was trained to [H36]",
    ),
    Mutant(
        name="ollama_loaded_context_ignored",
        path="harness/calls/openai_client.py",
        old="""            window = loaded.get(model_id) or ollama_window(show)\n""",
        new="""            window = ollama_window(show)\n""",
        check=test(WINDOW_RUN_AT + "[ollama]"),
        note="Ollama's /api/ps context_length of a loaded model ignored: its Modelfile's num_ctx or its trained "
             "length taken, while it runs at the server's default [H36]",
    ),
    Mutant(
        name="llama_props_window_for_every_model",
        path="harness/calls/openai_client.py",
        old="""        if len(ids) == 1:\n            return {ids[0]: (props_window(props), LLAMA_PROPS)}\n""",
        new="""        if ids:\n            return {model_id: (props_window(props), LLAMA_PROPS) for model_id in ids}\n""",
        check=test(LOCAL + "test_a_llama_cpp_router_gives_each_model_its_own_window_never_the_first_ones"),
        note="llama.cpp's /props n_ctx, which names one model, taken for every model a router lists [H36]",
    ),
    Mutant(
        name="vllm_count_not_asked",
        path="harness/calls/openai_client.py",
        old="""        if self.counter == "vllm":\n""",
        new="""        if False:\n""",
        check=test(COUNTED + "[vllm]"),
        note="vLLM's /tokenize never asked: a body that fits is refused by its bytes [H36]",
    ),
    Mutant(
        name="chat_sent_past_the_byte_bound_without_a_count",
        path="harness/calls/openai_client.py",
        old="""        if self.api == "openai-chat":  # [H36] a server that counts nothing: its bytes decide, said so\n""",
        new="""        if self.api == "openai-chat":  # [H36] a server that counts nothing: its bytes decide, said so\n            return None\n""",
        check=test(COUNTED + "[ollama]"),
        note="a body past the window sent to a server that counts nothing (Ollama cuts it silently) [H36]",
    ),
    Mutant(
        name="llama_tokenize_takes_any_field",
        path="harness/localapi/openai_api.py",
        old="""            if unknown or not isinstance(body.get("content"), str) or \\\n""",
        new="""            if not isinstance(body.get("content"), str) or \\\n""",
        check=test(SERVERS + "test_llama_cpps_own_endpoints_refuse_what_they_do_not_take[tokenize_unknown_field]"),
        note="the llama.cpp stand-in's /tokenize takes a field llama.cpp does not document [H36]",
    ),
]
