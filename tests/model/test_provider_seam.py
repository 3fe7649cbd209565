"""Strategy: the provider seam is a lint [H14]. Only the provider's module (harness/calls/anthropic.py)
and the test equipment (harness/localapi/) may spell the Messages API's cache mark (`cache_control`)
or read its stop reason as a key (`"stop_reason"`); only the OpenAI providers' modules
(harness/calls/openai.py, harness/calls/openai_client.py) and the test equipment may spell the
OpenAI wire (`prompt_cache_key`, `finish_reason`, `tool_call_id`, the usage's `*_tokens_details`) or import its
SDK [H26]; the turn, the subagent, the compactor, the prompt and the simulator build neutral
values. Run on the real tree (no violation) and on a copy with one of each planted in a room that
must not know it (said, in one sentence)."""

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROVIDER = "harness/calls/anthropic.py"
WIRE = re.compile(r"cache_control|[\"']stop_reason[\"']")
OPENAI = ("harness/calls/openai.py", "harness/calls/openai_client.py")
OPENAI_WIRE = re.compile(r"prompt_cache_key|finish_reason|tool_call_id|_tokens_details|^\s*(?:import|from) openai\b")


def wire_violations(root: Path = ROOT) -> list[str]:
    """One sentence per line outside the provider that spells the wire's marks or stop reason."""
    said = []
    for path in sorted((root / "harness").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where.startswith("harness/localapi/"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            found = WIRE.search(line)
            if found and where != PROVIDER:
                said.append(f"{where}:{number}: spells {found.group(0)}; only {PROVIDER} knows the "
                            "Messages API's marks and stop reasons.")
            found = OPENAI_WIRE.search(line)
            if found and where not in OPENAI:
                said.append(f"{where}:{number}: spells {found.group(0).strip()}; only {' and '.join(OPENAI)} "
                            "know the OpenAI wire.")
    return said


def test_only_the_provider_knows_the_wires_marks_and_stop_reasons():
    assert wire_violations() == []


def test_a_mark_or_a_stop_reason_planted_in_the_turn_or_the_simulator_is_said(tmp_path: Path):
    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    for where, line in (("harness/calls/turn.py", 'MARK = {"cache_control": {"type": "ephemeral"}}'),
                        ("harness/bench/simulate_meter.py", 'STOP = body["stop_reason"]')):
        path = tmp_path / where
        path.write_text(path.read_text() + "\n" + line + "\n")
    said = {sentence.split(":")[0]: sentence for sentence in wire_violations(tmp_path)}
    assert sorted(said) == ["harness/bench/simulate_meter.py", "harness/calls/turn.py"]
    assert "spells cache_control" in said["harness/calls/turn.py"]
    assert 'spells "stop_reason"' in said["harness/bench/simulate_meter.py"]


def test_the_openai_wire_planted_in_the_loop_the_anthropic_provider_or_the_usage_is_said(tmp_path: Path):
    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    for where, line in (("harness/calls/loop.py", 'KEY = {"prompt_cache_key": "ever"}'),
                        ("harness/calls/anthropic.py", 'WHY = chunk["finish_reason"]'),
                        ("harness/calls/usage.py", "import openai")):
        path = tmp_path / where
        path.write_text(path.read_text() + "\n" + line + "\n")
    said = {sentence.split(":")[0]: sentence for sentence in wire_violations(tmp_path)}
    assert sorted(said) == ["harness/calls/anthropic.py", "harness/calls/loop.py", "harness/calls/usage.py"]
    assert "spells prompt_cache_key" in said["harness/calls/loop.py"]
    assert "spells finish_reason" in said["harness/calls/anthropic.py"]
    assert "spells import openai" in said["harness/calls/usage.py"]
