"""An image's size in pixels from its bytes, for the vision limits (the tools, zoom, and the local API):
PNG, JPEG, GIF and WebP headers read by hand, as the API reads them before it looks at a picture."""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Any

# vision: "The per-image dimension cap is 8000x8000 pixels, except when the request contains more
# than 20 images, in which case it drops to 2000x2000." A bigger image fails its whole request.
SIDE_PX_MAX = 8000
SIDE_PX_MAX_MANY = 2000
MANY_IMAGES_OVER = 20


def too_big(data: bytes, media_type: str, side_px_max: int = SIDE_PX_MAX) -> str:
    """Why the API would refuse this picture, in words ("9000×600 px, over 8000 a side"); ""
    when it would take it (or its size cannot be read: the API then says so itself)."""
    size = raw_size(data, media_type)
    if size is None or (size[0] <= side_px_max and size[1] <= side_px_max):
        return ""
    return f"{size[0]}×{size[1]} px, over the API's {side_px_max:,} pixels a side"


def raw_size(data: bytes, media_type: str) -> tuple[int, int] | None:
    reader = {"image/png": png, "image/jpeg": jpeg, "image/gif": gif, "image/webp": webp}.get(media_type)
    if reader is None:
        return None
    try:
        return reader(data)
    except (struct.error, IndexError):
        return None


def image_size(data: Any, media_type: str) -> tuple[int, int] | None:
    """(width, height) of base64 `data` of `media_type`; None when it is not such a picture."""
    if not isinstance(data, str):
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw_size(raw, media_type)


def png(raw: bytes) -> tuple[int, int] | None:
    if raw[:8] != b"\x89PNG\r\n\x1a\n" or raw[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", raw[16:24])


def gif(raw: bytes) -> tuple[int, int] | None:
    if raw[:6] not in (b"GIF87a", b"GIF89a"):
        return None
    return struct.unpack("<HH", raw[6:10])


def webp(raw: bytes) -> tuple[int, int] | None:
    if raw[:4] != b"RIFF" or raw[8:12] != b"WEBP":
        return None
    chunk = raw[12:16]
    if chunk == b"VP8X":
        width = 1 + int.from_bytes(raw[24:27], "little")
        height = 1 + int.from_bytes(raw[27:30], "little")
        return width, height
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", raw[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def jpeg(raw: bytes) -> tuple[int, int] | None:
    if raw[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 4 <= len(raw):
        if raw[at] != 0xFF:
            return None
        marker = raw[at + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            at += 2
            continue
        length = struct.unpack(">H", raw[at + 2:at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", raw[at + 5:at + 9])
            return width, height
        at += 2 + length
    return None
