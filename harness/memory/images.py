"""Images a tool gave the model, kept for zoom [gist §1: `read` … "an image, which reaches the
model as an image and is kept for zoom"; §6: `zoom(id, 1)` gives the message "with its images"]
[H8].

On disk, `chat/images/<sha256>.<ext>` (harness/memory/home.py): an image's bytes, named by their
SHA-256 in hex, the extension png, jpg, gif or webp from its type.

An image is written whole (a temporary file, fsync'd, renamed, the directory fsync'd) before the
`echo` line that names it is logged, so a crash never leaves a line pointing at a missing image.
The name is the content: the same image read again is written once, and a file that no longer
hashes to its name is known to be damaged.

In the log, the echo message names each image on a line of its own, where the image was in the
tool's result (just before it), numbered from 1 within the message:

    red.png: image/png, 67 bytes
    [image 1: image/png, 67 bytes, images/3b1f…c9a2.png]

The path is relative to the chat directory, as the README names the chat's files; the message line's
JSON format is unchanged. The same line goes to the model in the tool's result, as a text block
before the image, so what the model saw and what the log holds are the same words.

`zoom(id, 1)` gives such a message back cut at each such line: the text up to it, the line, the
image (or a note saying why it is not there: missing, unreadable, or not hashing to its name), and
on. A reference is found by its form wherever a message zoomed whole holds it; only a file in
`images/` whose bytes hash to the name can come back, so a quoted reference can give only the
very image it names, already in this chat.
"""

import base64
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.memory.logfile import DIRECTORY_MODE, make_directory, write_whole
from harness.memory.pixels import too_big

JSON = dict[str, Any]

# [H8] The API's limit is 5 MB of base64 per image; base64 is 4/3 of the bytes.
IMAGE_BYTES_MAX = 3_750_000
IMAGE_TYPES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


@dataclass(frozen=True)
class ToolResult:
    """What a tool gives the model: Messages API content blocks (text, image) and the error flag."""

    content: tuple[dict[str, Any], ...]
    is_error: bool = False

    def text(self) -> str:
        """The text blocks joined: what the log keeps as the `echo` message."""
        return "\n".join(block["text"] for block in self.content if block["type"] == "text")

    def images(self) -> tuple[dict[str, Any], ...]:
        return tuple(block for block in self.content if block["type"] == "image")

    def block(self, tool_use_id: str) -> dict[str, Any]:
        """The `tool_result` block for the next request."""
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id,
                                  "content": [dict(block) for block in self.content]}
        if self.is_error:
            result["is_error"] = True
        return result


def text_result(text: str, is_error: bool = False) -> ToolResult:
    return ToolResult(({"type": "text", "text": text},), is_error)


def error_result(text: str) -> ToolResult:
    return text_result(text, is_error=True)


def image_type(head: bytes) -> str | None:
    for magic, media_type in IMAGE_TYPES:
        if head.startswith(magic):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


IMAGES_DIRECTORY = "images"
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}

# A reference on a line of its own. A message zoomed whole starts with its kind ("echo: "), so a
# result that opens with an image has its reference after that prefix.
REFERENCE = re.compile(
    r"^(?:echo: )?\[image (?P<number>[1-9][0-9]*): (?P<media_type>image/(?:png|jpeg|gif|webp)), "
    r"(?P<size>[0-9]{1,3}(?:,[0-9]{3})*) bytes, "
    r"(?P<name>images/(?P<sha256>[0-9a-f]{64})\.(?P<extension>png|jpg|gif|webp))\]$",
    re.MULTILINE)


def reference(number: int, media_type: str, size: int, sha256: str) -> str:
    """The line that names image `number` of a message."""
    return (f"[image {number}: {media_type}, {size:,} bytes, "
            f"{IMAGES_DIRECTORY}/{sha256}.{EXTENSIONS[media_type]}]")


# --- keeping ---------------------------------------------------------------------------------


def keep(data: bytes, media_type: str, chat: Path) -> str:
    """Put `data` in chat/images/ under its hash, on disk before this returns; its SHA-256."""
    sha256 = hashlib.sha256(data).hexdigest()
    directory = chat / IMAGES_DIRECTORY
    if not make_directory(directory) and os.stat(directory).st_mode & 0o777 != DIRECTORY_MODE:
        os.chmod(directory, DIRECTORY_MODE)
    path = directory / f"{sha256}.{EXTENSIONS[media_type]}"
    try:
        if hashlib.sha256(path.read_bytes()).hexdigest() == sha256:
            return sha256  # kept already, whole
    except FileNotFoundError:
        pass
    write_whole(path, data)  # a damaged copy is replaced
    return sha256


def kept(result: ToolResult, chat: Path) -> ToolResult:
    """`result` with each image kept on disk and named by a reference line just before it.

    An image that cannot be kept (a full disk) is not shown either: the model sees only what the
    log can give back. The note says so, and the rest of the result stands."""
    content: list[JSON] = []
    number = 0
    for block in result.content:
        if block["type"] != "image":
            content.append(block)
            continue
        number += 1
        source = block.get("source", {})
        media_type = source.get("media_type")
        if source.get("type") != "base64" or media_type not in EXTENSIONS:
            content.append(text_block(f"[image {number} was not kept: only PNG, JPEG, GIF and "
                                      "WebP images given as base64 are; it was not shown]"))
            continue
        data = base64.b64decode(source["data"])
        oversized = too_big(data, media_type)
        if oversized:
            # sent, it would fail this turn and every later zoom of its message (vision's limit)
            content.append(text_block(f"[image {number} was not kept and not shown: {oversized}]"))
            continue
        try:
            sha256 = keep(data, media_type, chat)
        except OSError as error:
            content.append(text_block(f"[image {number} was not kept ({error.strerror or error}), "
                                      "so it was not shown]"))
            continue
        content.append(text_block(reference(number, media_type, len(data), sha256)))
        content.append(block)
    return ToolResult(tuple(content), result.is_error)


def text_block(text: str) -> JSON:
    return {"type": "text", "text": text}


# --- giving back -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """One reference of a text, and its image read back (or why it could not be)."""

    number: int
    media_type: str
    name: str  # images/<sha256>.<ext>, relative to the chat directory
    path: Path
    data: bytes | None
    problem: str  # "" when data is the image

    def note(self, where: str) -> str:
        return f"[image {self.number} is not available: {where} {self.problem}]"


def found(match: "re.Match[str]", chat: Path) -> Found:
    number = int(match["number"])
    media_type = match["media_type"]
    name = match["name"]
    path = chat / name
    size = int(match["size"].replace(",", ""))

    def missing(problem: str) -> Found:
        return Found(number, media_type, name, path, None, problem)

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return missing("is missing")
    except OSError as error:
        return missing(f"cannot be read ({error.strerror or error})")
    if hashlib.sha256(data).hexdigest() != match["sha256"]:
        return missing("does not match its SHA-256: the file was changed or damaged")
    # A file that hashes to its name was kept from a real image; a reference that describes it
    # wrongly was not written by Ever, and the API would refuse a type that lies.
    if (len(data) != size or image_type(data[:16]) != media_type
            or EXTENSIONS[media_type] != match["extension"] or len(data) > IMAGE_BYTES_MAX):
        return missing("is not the image this line describes")
    oversized = too_big(data, media_type)
    if oversized:
        return missing(f"is {oversized}")
    return Found(number, media_type, name, path, data, "")


def with_images(text: str, chat: Path) -> tuple[JSON, ...]:
    """A zoom's text as the model gets it: cut at each reference, each followed by its image as
    an image block, or by a note saying why it is not there. The text blocks joined with line
    breaks are the text (a blank line next to a reference aside: the API takes no empty block)."""
    blocks: list[JSON] = []
    start = 0

    def add_text(piece: str) -> None:
        if piece.strip():
            blocks.append(text_block(piece))

    for match in REFERENCE.finditer(text):
        add_text(text[start:match.start()].removesuffix("\n"))
        blocks.append(text_block(match[0]))
        image = found(match, chat)
        if image.data is None:
            blocks.append(text_block(image.note(image.name)))
        else:
            blocks.append({"type": "image", "source": {
                "type": "base64", "media_type": image.media_type,
                "data": base64.b64encode(image.data).decode("ascii")}})
        start = match.end() + 1  # past the line break that ends the reference, if any
    add_text(text[start:])
    if not blocks:
        blocks.append(text_block(text))  # an empty message is still an answer
    return tuple(blocks)


def named_images(text: str, chat: Path) -> str:
    """A zoom's text as a person reads it in the terminal: each reference followed by the image
    file's whole path, or the note saying why it is not there. No bytes."""
    rows: list[str] = []
    start = 0
    for match in REFERENCE.finditer(text):
        rows.append(text[start:match.end()])
        image = found(match, chat)
        if image.data is None:
            rows.append("\n" + image.note(str(image.path)))
        else:
            rows.append(f"\n  file: {image.path}")
        start = match.end()
    rows.append(text[start:])
    return "".join(rows)


def pages(text: str, chars: int) -> list[str]:
    """`text` in pages of `chars` characters that join back to it, except that a page never ends
    inside a reference: the reference starts the next page whole, so its image goes with it."""
    spans = [match.span() for match in REFERENCE.finditer(text)]
    result = []
    start = 0
    while len(text) - start > chars:
        end = start + chars
        for first, last in spans:
            if start < first < end < last:
                end = first
                break
        result.append(text[start:end])
        start = end
    result.append(text[start:])
    return result
