"""`ever browse`: the memory's page written to a file, or served on 127.0.0.1 (harness/memory/browse.py
makes the page)."""

import http.server
import os
from pathlib import Path
from typing import Callable, Optional

from harness.chat.config import Settings
from harness.memory.browse import page
from harness.memory.service import Memory
from harness.memory.store import FILE_MODE


def memory_page(settings: Settings) -> bytes:
    memory = Memory.open(settings.home)
    try:
        return page(memory.store, memory.planner)
    finally:
        memory.close()


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
