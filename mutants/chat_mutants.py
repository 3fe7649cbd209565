"""Bugs planted in the chat itself (store, service, turn, tools), each of which a test that
`make test` runs must catch.

Strategy: one mutant for each promise the README makes about the log, the memory and the tools
that no law or bridge run covers: a line fsync'd before its append returns, a checkpoint written
when due, a turn's message logged after its view, the key kept out of the shell, a zoom that gives
an image back, a script's message joined to the running call.
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    """One pytest test: the judge needs the test it names."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


MUTANTS = [
    Mutant(
        name="store_append_without_fsync",
        path="harness/memory/store.py",
        old="            os.fsync(log.append_fd)\n",
        new="",
        check=test("tests/test_store.py::test_each_line_is_one_write_fsynced_before_the_append_returns"),
        note="a line is acknowledged before it is on disk [gist §1]",
    ),
    Mutant(
        name="service_never_checkpoints",
        path="harness/memory/service.py",
        old="        if self.planner.save_due():\n",
        new="        if False:\n",
        check=test("tests/test_service.py::test_a_checkpoint_is_written_every_128_lines_and_when_a_failure_is_counted"),
        note="view.json is written at open and close only: a crash replays the whole chat [decision P10]",
    ),
    Mutant(
        name="turn_logs_its_message_before_the_view",
        path="harness/calls/turn.py",
        old="        memory = self.memory\n        try:\n",
        new="        memory = self.memory\n        self.log(\"user\", text)\n        try:\n",
        check=test("tests/test_turn.py::test_a_turn_sends_tools_system_the_view_in_blocks_the_state_and_the_message"),
        note="the message is in the view and again after it [decision P17]",
    ),
    Mutant(
        name="shell_keeps_the_key",
        path="harness/calls/tools.py",
        old="            if name not in KEY_VARIABLES and not any(secret in value for secret in secrets)}\n",
        new="            if not any(secret in value for secret in secrets) or name in KEY_VARIABLES}\n",
        check=test("tests/test_tools.py::test_the_shell_environment_holds_no_key"),
        note="the shell tool is handed ANTHROPIC_API_KEY",
    ),
    Mutant(
        name="zoom_gives_text_only",
        path="harness/memory/images.py",
        old="        if image.data is None:\n            blocks.append(text_block(image.note(image.name)))\n        else:\n",
        new="        if image.data is None:\n            blocks.append(text_block(image.note(image.name)))\n        elif False:\n",
        check=test("tests/test_images.py::test_a_read_image_is_kept_and_a_later_zoom_gives_the_same_bytes_to_the_model"),
        note="zoom(id, 1) leaves the message's images out [gist §6]",
    ),
    Mutant(
        name="ever_send_starts_its_own_turn",
        path="harness/chat/session.py",
        old="        if self.turn is not None:\n            return await self.join(text, output, approval)\n",
        new="",
        check=test("tests/test_cli.py::test_ever_send_joins_the_running_call_and_gets_the_reply_that_took_it"),
        note="a script's message waits for the running call to end instead of joining it [gist §6]",
    ),
    Mutant(
        name="memory_commands_load_the_sdk",
        path="harness/chat/cli.py",
        old="from harness.chat import owner\n",
        new="from harness.chat import owner\nimport harness.calls.client  # noqa: F401\n",
        check=test("tests/test_fast_start.py::test_a_command_that_needs_no_model_imports_no_sdk[memory status]"),
        note="`ever memory status` and the other commands that need no model import the SDK",
    ),
    Mutant(
        name="whitespace_text_goes_back",
        path="harness/calls/requests.py",
        old='        if block.get("type") == "text" and not str(block.get("text", "")).strip():\n',
        new="        if False:\n",
        check=test("tests/test_requests_accepted.py::test_2_whitespace_text_before_a_tool_call_does_not_go_back"),
        note="a reply's whitespace-only text block goes back in the tool loop, which the API refuses",
    ),
    Mutant(
        name="local_api_takes_whitespace_text",
        path="harness/localapi/validation.py",
        old='        if not block["text"].strip():\n',
        new="        if False:\n",
        check=test("tests/test_localapi.py::test_strict_whitespace_only_text"),
        note="the local API accepts what the real one refuses: the suite cannot see the bug above",
    ),
]
