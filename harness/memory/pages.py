"""The pages `ever browse --out` wrote outside the home, which hold the chat's messages too: where
each went (`chat/pages.json`, a cache replaced whole), and what one holds
once its compressed parts are opened (harness/browse/page.py, [B1]).

`ever forget` makes each page named here anew from the chat as it is after the forget (through
the writer it is given: harness/browse/browsing.py's) and searches it, its parts opened (a byte
search of a page finds no message: each part is gzip'd, then base64'd) [B5]. A backup copies no
page: a page is made again from the truth by `ever browse`, as every cache is, and this record
names paths of one machine only.
"""

import base64
import binascii
import gzip
import json
import re
import zlib
from pathlib import Path

from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import read_file, write_whole

RECORD = "chat/pages.json"
PAGES_MAX = 64  # the most recent pages kept in the record
PART = re.compile(rb'<script type="application/x-ever-part" id="[^"]*">([A-Za-z0-9+/=]*)</script>')


def pages_written(home: Path, disk: Disk = REAL_DISK) -> list[Path]:
    """The pages `ever browse --out` wrote from this home, oldest first."""
    try:
        raw = json.loads(read_file(home / RECORD, disk, bytes_max=1 << 20))
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return []
    return [Path(path) for path in raw if isinstance(path, str)] if isinstance(raw, list) else []


def record_page(home: Path, path: Path, disk: Disk = REAL_DISK) -> None:
    """`path` named in the record (once, last); a full disk leaves the record as it was."""
    path = Path(path).absolute()
    pages = [page for page in pages_written(home, disk) if page != path] + [path]
    try:
        write_whole(home / RECORD, json.dumps([str(p) for p in pages[-PAGES_MAX:]], ensure_ascii=False).encode(),
                    disk)
    except OSError:
        pass


def opened(data: bytes) -> bytes:
    """A page with each compressed part appended opened (JSON, as it was gzip'd); any other file
    as it is."""
    found = [data]
    for match in PART.finditer(data):
        try:
            found.append(gzip.decompress(base64.b64decode(match.group(1), validate=True)))
        except (binascii.Error, OSError, EOFError, zlib.error):
            found.append(match.group(1))  # not a part Ever wrote: searched as it stands
    return b"\n".join(found)
