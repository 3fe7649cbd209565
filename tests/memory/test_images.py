"""Strategy: an image goes the whole way a person's chat takes it. A real PNG (built here, chunk by
chunk, with its CRCs) is read by the model's `read` call in a turn, through the real SDK over real
HTTP against the local Messages API; a later turn's model zooms into the `echo`, and the request
the local API recorded must carry the very same bytes (base64) as an image block in the zoom's
tool result, after the text and the reference line, in the message's order. The reference line
and the file name are written out here from the rule in harness/memory/images.py's docstring, the hash
computed by hashlib on the test's own bytes; the file's mode is read from the disk. The order
"image on disk, then the echo" is watched at its source: every fsync (by the path of its
descriptor) and every log append, in the order they happen. A damaged file, a missing file, a
page boundary across a reference and the terminal's view are each checked against the exact text
a person or the model must get.
"""

import asyncio
import base64
import hashlib
import os
import stat
import struct
import subprocess
import zlib
from datetime import UTC, datetime

from harness.calls.approval import Approval
from harness.calls.client import Client, ClientSettings
from harness.calls.prompt import Prompt
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.server import Reply, tool_use
from harness.memory import service
from harness.memory.images import ToolResult, kept, pages, with_images
from harness.memory.service import Job, JobResult, Memory
from harness.owner.commands import answer as slash
from tests.support.chat import EVER, logged

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)


def png(width, rgb_rows):
    """A real PNG: 8-bit RGB, one filter byte per row, each chunk with its CRC."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    header = struct.pack(">IIBBBBB", width, len(rgb_rows), 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + row for row in rgb_rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


RED = png(1, [b"\xff\x00\x00"])
GREEN_BLUE = png(2, [b"\x00\xff\x00\x00\x00\xff"])


def b64(data):
    return base64.b64encode(data).decode("ascii")


def name(data, extension="png"):
    return f"images/{hashlib.sha256(data).hexdigest()}.{extension}"


def reference(number, data):
    return f"[image {number}: image/png, {len(data):,} bytes, {name(data)}]"


def image_block(data):
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(data)}}


def text_block(text):
    return {"type": "text", "text": text}


async def answer(job: Job) -> JobResult:
    return JobResult(f"{job.kind}: summary of {job.name}" if job.l == 0 else f"merged {job.name}")


def run_turn(memory, api, tmp_path, words):
    async def go():
        client = Client(ClientSettings(api_key="test-key", base_url=api.base_url, attempts_max=2,
                                       backoff_first_seconds=0.01))
        tools = WorkTools(str(tmp_path), Approval(yes=True), secrets=("test-key",))
        settings = TurnSettings("claude-sonnet-4-6", 5.0, workdir=str(tmp_path), clock=lambda: NOW)
        turn = Turn(memory, client, Prompt.build(), tools, settings)
        try:
            return await turn.run(words)
        finally:
            await client.aclose()
            await memory.idle()
    return asyncio.run(go())


def tool_result_content(api, request_index):
    """The content of the tool result the given recorded request sent back."""
    block = api.requests[request_index].body["messages"][-1]["content"][0]
    assert block["type"] == "tool_result"
    return block["content"]


def read_then_zoom(memory, api, tmp_path, damage=None):
    """Turn 1: the model reads red.png. `damage` may then change the kept file. Turn 2: the model
    zooms into the echo (message 2: user 0, tool 1, echo 2). The zoom's tool result content."""
    (tmp_path / "red.png").write_bytes(RED)
    api.reset()
    api.enqueue(Reply([tool_use("read", {"path": "red.png"}, id="r1")]))
    api.enqueue("A red pixel.")
    assert run_turn(memory, api, tmp_path, "look at red.png").reply == "A red pixel."
    if damage:
        damage(memory.store.chat / name(RED))
    api.enqueue(Reply([tool_use("zoom", {"id": 2, "n": 1}, id="z1")]))
    api.enqueue("Still red.")
    assert run_turn(memory, api, tmp_path, "what was that image?").reply == "Still red."
    assert api.pending == 0
    return tool_result_content(api, 3)


def test_a_read_image_is_kept_and_a_later_zoom_gives_the_same_bytes_to_the_model(tmp_path, api):
    memory = Memory.open(tmp_path / "home", build=answer)
    try:
        zoomed = read_then_zoom(memory, api, tmp_path)
        echo = f"red.png: image/png, {len(RED)} bytes\n{reference(1, RED)}"
        # the read's result, live: the text, the reference, the image
        assert tool_result_content(api, 1) == [
            text_block(f"red.png: image/png, {len(RED)} bytes"), text_block(reference(1, RED)),
            image_block(RED)]
        assert logged(memory)[:4] == [("user", "look at red.png"), ("tool", 'read {"path": "red.png"}'),
                                      ("echo", echo), ("ever", "A red pixel.")]
        # the zoom's result, a turn later: the message whole, with its image, in its order
        assert zoomed == [text_block(f"echo: red.png: image/png, {len(RED)} bytes"),
                          text_block(reference(1, RED)), image_block(RED)]
        path = memory.store.chat / name(RED)
        assert path.read_bytes() == RED
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        # the zoom's own echo names the image too, so it can be zoomed in turn
        assert logged(memory)[6] == ("echo", f"echo: {echo}")
    finally:
        memory.close()


def test_the_image_is_on_disk_before_the_echo_that_names_it_is_logged(tmp_path, api, monkeypatch):
    memory = Memory.open(tmp_path / "home", build=answer)
    events = []
    real_fsync, real_append = os.fsync, memory.append

    def fsync(fd):
        real_fsync(fd)
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))

    def append(kind, text, now=None):
        events.append(("append", kind))
        return real_append(kind, text, now)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(memory, "append", append)
    try:
        (tmp_path / "red.png").write_bytes(RED)
        api.reset()
        api.enqueue(Reply([tool_use("read", {"path": "red.png"}, id="r1")]))
        api.enqueue("Seen.")
        run_turn(memory, api, tmp_path, "look")
        image = str(memory.store.chat / name(RED))
        echo = events.index(("append", "echo"))
        written = events.index(("fsync", image + ".tmp"))  # written whole, then renamed
        renamed = events.index(("fsync", str(memory.store.chat / "images")))
        assert written < renamed < echo
    finally:
        memory.close()


def test_a_damaged_image_file_gives_a_clear_note_instead_of_the_image(tmp_path, api):
    memory = Memory.open(tmp_path / "home", build=answer)
    try:
        def damage(path):
            path.write_bytes(RED[:-1] + b"\x00")  # the same length, one byte changed
        zoomed = read_then_zoom(memory, api, tmp_path, damage)
        assert zoomed == [
            text_block(f"echo: red.png: image/png, {len(RED)} bytes"), text_block(reference(1, RED)),
            text_block(f"[image 1 is not available: {name(RED)} does not match its SHA-256: the file "
                       "was changed or damaged]")]
    finally:
        memory.close()


def test_a_missing_image_file_gives_a_clear_note(tmp_path):
    text = f"echo: shot.png: image/png, {len(RED)} bytes\n{reference(1, RED)}"
    assert with_images(text, tmp_path) == (
        text_block(f"echo: shot.png: image/png, {len(RED)} bytes"), text_block(reference(1, RED)),
        text_block(f"[image 1 is not available: {name(RED)} is missing]"))


def test_a_repeated_image_is_stored_once_and_a_damaged_copy_is_replaced(tmp_path):
    chat = tmp_path / "chat"
    chat.mkdir(mode=0o700)
    result = ToolResult((text_block("a"), image_block(RED)))
    first = kept(result, chat)
    path = chat / name(RED)
    before = path.stat().st_mtime_ns, path.stat().st_ino
    again = kept(ToolResult((text_block("b"), image_block(RED))), chat)
    assert first.content[1] == again.content[1] == text_block(reference(1, RED))
    assert sorted(p.name for p in (chat / "images").iterdir()) == [path.name]
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == before  # not written again
    path.write_bytes(b"damaged")
    kept(result, chat)
    assert path.read_bytes() == RED


def test_images_come_back_in_the_message_order_each_after_its_reference(tmp_path):
    chat = tmp_path / "chat"
    chat.mkdir(mode=0o700)
    result = kept(ToolResult((text_block("two shots"), image_block(RED), text_block("and"),
                              image_block(GREEN_BLUE), text_block("end"))), chat)
    text = result.text()
    assert text == f"two shots\n{reference(1, RED)}\nand\n{reference(2, GREEN_BLUE)}\nend"
    assert with_images(text, chat) == (
        text_block("two shots"), text_block(reference(1, RED)), image_block(RED), text_block("and"),
        text_block(reference(2, GREEN_BLUE)), image_block(GREEN_BLUE), text_block("end"))
    # a result that opens with its image: the zoom's kind prefix stays with the reference
    opening = kept(ToolResult((image_block(RED),)), chat).text()
    assert with_images("echo: " + opening, chat) == (
        text_block(f"echo: {reference(1, RED)}"), image_block(RED))


def test_an_image_goes_with_the_page_that_holds_its_reference(tmp_path, monkeypatch):
    monkeypatch.setattr(service, "PAGE_CHARS", 150)
    memory = Memory.open(tmp_path / "home")
    try:
        # "echo: " and 130 x's end at 136; the reference (107 characters) starts at 137 and
        # crosses 150
        text = kept(ToolResult((text_block("x" * 130), image_block(RED))), memory.store.chat).text()
        memory.append("echo", text)
        first, second = memory.zoom(0, 1, page=1), memory.zoom(0, 1, page=2)
        assert first == "[message 0, page 1 of 2]\necho: " + "x" * 130 + "\n"
        assert second.startswith(f"[message 0, page 2 of 2]\n{reference(1, RED)}")
        assert image_block(RED) not in with_images(first, memory.store.chat)
        assert with_images(second, memory.store.chat)[-1] == image_block(RED)
    finally:
        memory.close()
    # without references, pages are plain cuts every `chars` characters
    assert pages("abcdefghij" * 2 + "k", 10) == ["abcdefghij", "abcdefghij", "k"]


def test_the_terminal_zoom_names_each_image_by_its_path(tmp_path, api):
    home = tmp_path / "home"
    memory = Memory.open(home)
    try:
        echo = kept(ToolResult((text_block("red.png: image/png, 67 bytes"), image_block(RED))),
                    memory.store.chat).text()
        memory.append("echo", echo)
        memory.append("echo", f"gone.png\n{reference(1, GREEN_BLUE)}")  # never kept
    finally:
        memory.close()
    path = home / "chat" / name(RED)
    expected = f"echo: {echo}\n  file: {path}\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env.update(EVER_HOME=str(home), ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="test-key")
    done = subprocess.run([EVER, "memory", "zoom", "0", "1"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    assert b"IHDR" not in done.stdout.encode()  # names, never bytes
    # the chat's /memory zoom shows the same, and says when a file is missing
    memory = Memory.open(home)
    try:
        chat = type("Chat", (), {"memory": memory})()
        assert slash(chat, "/memory zoom 0 1", None) == expected.removesuffix("\n")
        gone = home / "chat" / name(GREEN_BLUE)
        assert slash(chat, "/memory zoom 1 1", None) == (
            f"echo: gone.png\n{reference(1, GREEN_BLUE)}\n"
            f"[image 1 is not available: {gone} is missing]")
    finally:
        memory.close()
