"""`ever browse`: the memory's page written to a file, or served on 127.0.0.1 (harness/browse/
makes the page).

**Decision [B3], a running chat is browsed from a copy.** One process owns a chat [gist §1], and
the page must not stall it: while another process owns the chat, its checkpoint, its index and
then its logs are copied into a private directory, which is opened and paged. The logs only
grow, so logs copied after the checkpoint hold everything it names; a line being written as it
is copied is torn in the copy, and skipped there as any torn line is [S2]. The page then shows
the chat as it was a moment ago; the owner never waits.

**Decision [B4], the served page is the user's only.** `--serve` listens on 127.0.0.1 at a path
holding 32 random characters, printed once to the person who asked and logged nowhere; a request
whose `Host` is not 127.0.0.1 or localhost (with the port) is refused, which defeats DNS
rebinding; the page is made at each request from the chat as it is then.
"""

import hmac
import http.server
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from harness.browse.page import page
from harness.chat.config import ConfigError, Settings
from harness.memory.logfile import FILE_MODE
from harness.memory.pages import record_page
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


def write_page_file(path: Path, data: bytes) -> None:
    """The page (0600: it holds the chat) written beside `path` under a fresh name (O_EXCL, no link
    followed) and renamed over it, so it never lands in a file a link leads to; OSError, or
    ValueError (a link, not a regular file, another user's), saying why not."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        status = None
    if status is not None:
        if stat.S_ISLNK(status.st_mode):
            raise ValueError(f"{path} is a symbolic link; the page is not written through a link: "
                             "name the file itself, or another one.")
        if not stat.S_ISREG(status.st_mode):
            raise ValueError(f"{path} is not a regular file; name a file for the page.")
        if status.st_uid != os.geteuid():
            raise ValueError(f"{path} belongs to another user (uid {status.st_uid}), who could read "
                             "the page; name a file of your own.")
    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), FILE_MODE)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)  # replaces a name, never follows one
        temporary = None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def page_writer(memory: Memory) -> Callable[[Path], None]:
    """What writes the page of `memory` as it is now at a path: `ever forget`'s, for each page `ever
    browse --out` wrote [B5]; the page is made once, here, on the owner's thread."""
    data = page(memory.store, memory.planner)
    return lambda path: write_page_file(path, data)


def home_page_writer(home: Path) -> Callable[[Path], None]:
    """The same for a chat no process owns: it is opened when the first page is written."""
    made: list[bytes] = []

    def write(path: Path) -> None:
        if not made:
            made.append(paged(home))
        write_page_file(path, made[0])

    return write


def write_page(settings: Settings, out_path: str | None) -> str:
    """Write the page (0600: it holds the chat) and say where it is. It is written beside the
    target under a fresh name (O_EXCL, no link followed) and renamed over it, so the page never
    lands in a file a link leads to or a file someone else made and may read; such a target is
    refused, naming it. A page written outside the home is recorded, for `ever forget` [B5]."""
    data = memory_page(settings)
    path = Path(out_path) if out_path else settings.chat_dir / "memory.html"
    try:
        write_page_file(path, data)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    except OSError as error:
        raise ConfigError(f"{path}: {error.strerror or error}; the page was not written.") from None
    if out_path:
        record_page(settings.home, path)
    return f"{path} ({len(data):,} bytes): open it in a browser"


def serve_page(settings: Settings, port: int, say: Callable[[str], None]) -> None:
    """Serve the page on 127.0.0.1 only, until Ctrl-C [B4]: at a path holding a random secret, so
    another user of the machine cannot read the chat; to a request naming 127.0.0.1 or localhost
    as its `Host` only, so a web page whose name is rebound to 127.0.0.1 cannot either; made
    afresh at each request, so a reload shows the chat as it is. Nothing is logged: each request
    line holds the secret."""
    secret = secrets.token_urlsafe(24)
    at = f"/{secret}/"

    class Handler(http.server.BaseHTTPRequestHandler):
        def answer(self, with_body: bool) -> None:
            hosts = {f"127.0.0.1:{self.server.server_address[1]}", f"localhost:{self.server.server_address[1]}"}
            if self.headers.get("Host", "") not in hosts:
                self.send_error(421, "Misdirected Request", "this page answers to 127.0.0.1 only")
                return
            if not hmac.compare_digest(self.path.split("?")[0].encode(), at.encode()):
                self.send_error(404)
                return
            try:
                data = memory_page(settings)
            except Exception:  # the chat cannot be read now: a sentence, the server goes on
                self.send_error(503, "Service Unavailable", "the chat could not be read; try again")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")  # the secret stays in this tab
            self.end_headers()
            if with_body:
                self.wfile.write(data)

        def do_GET(self) -> None:
            self.answer(with_body=True)

        def do_HEAD(self) -> None:
            self.answer(with_body=False)

        def log_message(self, *args) -> None:
            pass  # a request line holds the secret

    memory_page(settings)  # a chat that cannot be read says so now, not at the first request
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    say(f"the memory's page is at http://127.0.0.1:{server.server_address[1]}{at} (only this "
        "address opens it; the page is made at each load; Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
