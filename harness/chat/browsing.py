"""`ever browse`: the memory's page written to a file, or served on 127.0.0.1 (harness/chat/browse/
makes the page).

**Decision [B3], a running chat is browsed from a copy.** One process owns a chat [gist §1], and
the page must not stall it: while another process owns the chat, its checkpoint, its index and
then its logs are copied into a private directory, which is opened and paged. The logs only
grow, so logs copied after the checkpoint hold everything it names; a line being written as it
is copied is torn in the copy, and skipped there as any torn line is [S2]. The page then shows
the chat as it was a moment ago; the owner never waits.
"""

import http.server
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Optional

from harness.chat.config import Settings
from harness.chat.browse.page import page
from harness.memory.logfile import FILE_MODE
from harness.memory.service import Memory
from harness.memory.store import ChatBusy


def paged(home: Path) -> bytes:
    memory = Memory.open(home)
    try:
        return page(memory.store, memory.planner)
    finally:
        memory.close()


def memory_page(settings: Settings) -> bytes:
    try:
        return paged(settings.home)
    except ChatBusy:
        pass
    with tempfile.TemporaryDirectory(prefix="ever-browse-") as copy:  # 0700
        source, target = settings.chat_dir, Path(copy) / "chat"
        target.mkdir(mode=0o700)
        # [B3] the checkpoint and the index first, the logs after them
        if (source / "view.json").exists():
            shutil.copyfile(source / "view.json", target / "view.json")
        for directory in ("index", "main", "tree"):
            (target / directory).mkdir(mode=0o700)
            if (source / directory).is_dir():
                for entry in sorted((source / directory).iterdir()):
                    if entry.is_file():
                        shutil.copyfile(entry, target / directory / entry.name)
                        os.chmod(target / directory / entry.name, FILE_MODE)
        return paged(Path(copy))


def write_page(settings: Settings, out_path: Optional[str]) -> str:
    """Write the page (0600: it holds the chat) and say where it is."""
    data = memory_page(settings)
    path = Path(out_path) if out_path else settings.chat_dir / "memory.html"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), FILE_MODE)
        f.write(data)
    return f"{path} ({len(data):,} bytes): open it in a browser"


def serve_page(settings: Settings, port: int, say: Callable[[str], None]) -> None:
    """Serve the page at / on 127.0.0.1 only, until Ctrl-C; made once, at start."""
    data = memory_page(settings)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] != "/":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    say(f"the memory's page is at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
