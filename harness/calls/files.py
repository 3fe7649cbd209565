"""The file tools' work: `read` (text as `cat -n` shows it, or an image), `write` and `edit`, on
regular files only [H7]. Each gives a `ToolResult`; an OSError passes up to the tools,
which make it the model's result.
"""

import base64
import os
import stat
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.calls.tool import READ_BYTES_MAX
from harness.memory.images import IMAGE_BYTES_MAX, ToolResult, error_result, image_type, text_result
from harness.memory.text import OUTPUT_CHARS_MAX, clip_output, valid_text

READ_LINES_DEFAULT = 2000
# [H7] `read` takes regular files of at most READ_BYTES_MAX bytes (the model is told so in
# the tool's description), and gives up on one that does not answer (a hung network file system)
READ_TIMEOUT_SECONDS = 10.0


# [H4] Files that hold keys and passwords wherever they are: a file tool asks before touching one,
# whatever the working directory (a chat run in the home would otherwise read ~/.ssh freely).
SECRET_NAMES = frozenset((
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity",
    ".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".env", ".htpasswd",
    "credentials", "credentials.json", "secrets.json", "secrets.yaml", "secrets.yml",
    "kubeconfig", "shadow", "gshadow", "master.key", "authinfo", ".authinfo"))
SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk", ".gpg")
SECRET_FOLDERS = frozenset((".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker",
                            ".password-store", ".vault-token", "gcloud"))


def secret_file(path: Path, home: str, private: Sequence[str] = ()) -> str | None:
    """What makes `path` a secret, or None [H4]: a known key or credential file, a file in a
    folder of keys (`.ssh`, `.aws`, …), a dotfile or dot-folder of the home, or a file in one of
    the `private` folders (Ever's own home). Checked on the path as given and on the file it
    names, links followed, so neither a link nor `..` hides one."""
    try:
        candidates = [os.path.abspath(path), os.path.realpath(path)]
    except (ValueError, OSError):
        return "a path that cannot be resolved"
    for where in candidates:
        parts = Path(where).parts
        name = parts[-1] if parts else ""
        if (name in SECRET_NAMES or name.startswith(".env.")
                or name.endswith(SECRET_SUFFIXES) or any(part in SECRET_FOLDERS for part in parts)):
            return f"a key or credential file ({where})"
        for folder in private:
            root = os.path.realpath(folder)
            if where == root or where.startswith(root.rstrip(os.sep) + os.sep):
                return f"a file of Ever's home ({where})"
        if home:
            root = os.path.realpath(home)
            if where.startswith(root.rstrip(os.sep) + os.sep):
                first = where[len(root.rstrip(os.sep)) + 1:].split(os.sep)[0]
                if first.startswith("."):
                    return f"a dotfile of the home ({where})"
    return None


def numbered_lines(text: str, first: int, limit: int) -> tuple[str, int, int]:
    """Lines first.. (1-based) as `cat -n` shows them, whole lines only, within the output size
    [H7]; (the text, the last line shown, the number of lines)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends a line; it does not start one
    budget = OUTPUT_CHARS_MAX - 200  # room for the note on where to read on
    carriage_return = "\r"
    rows: list[str] = []
    used = 0
    last = first - 1
    for number in range(first, min(first + limit, len(lines) + 1)):
        row = f"{number:>6}\t{lines[number - 1].removesuffix(carriage_return)}\n"
        if used + len(row) > budget:
            if not rows:
                rows.append(clip_output(row, budget))
                last = number
            break
        rows.append(row)
        used += len(row)
        last = number
    return "".join(rows), last, len(lines)


FILE_KINDS = ((stat.S_ISFIFO, "a FIFO (a named pipe)"), (stat.S_ISCHR, "a character device"),
              (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_regular(path: Path, shown: str, timeout_seconds: float, tool: str = "read"):
    """The bytes of the regular file at `path`, or the error result saying why not [H7]:
    a directory, a FIFO, a device or a socket is refused before a byte is read (a FIFO is opened
    without waiting for a writer, /dev/zero never read), a file over READ_BYTES_MAX is refused, and
    a read that takes longer than `timeout_seconds` is abandoned."""
    outcome: list = []

    def read() -> None:
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:
            outcome.append(error)
            return
        try:
            status = os.fstat(descriptor)  # of what was opened: no swap between look and read
            if stat.S_ISDIR(status.st_mode):
                outcome.append(error_result(f"{tool}: {shown} is a directory; list it with shell."))
                return
            for test, kind in FILE_KINDS:
                if test(status.st_mode):
                    outcome.append(error_result(f"{tool}: {shown} is {kind}, not a regular file; "
                                                f"{tool} takes regular files only."))
                    return
            if status.st_size > READ_BYTES_MAX:
                outcome.append(error_result(
                    f"{tool}: {shown} is {status.st_size:,} bytes; {tool} takes files of at most "
                    f"{READ_BYTES_MAX:,} bytes: look into it with shell (head, tail, grep)."))
                return
            chunks, total = [], 0
            while total <= READ_BYTES_MAX:  # a file that grows while read stops at the cap too
                chunk = os.read(descriptor, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            outcome.append(b"".join(chunks)[:READ_BYTES_MAX])
        except OSError as error:
            outcome.append(error)
        finally:
            os.close(descriptor)

    reader = threading.Thread(target=read, daemon=True, name="read")
    reader.start()
    reader.join(timeout_seconds)
    if not outcome:
        return error_result(f"{tool}: {shown} gave nothing within {timeout_seconds:g} s (a file "
                            "system that does not answer?); nothing was read.")
    if isinstance(outcome[0], OSError):
        raise outcome[0]
    return outcome[0]


def read_file(path: Path, tool_input: Mapping[str, Any], timeout_seconds: float) -> ToolResult:
    data = read_regular(path, tool_input["path"], timeout_seconds)
    if isinstance(data, ToolResult):
        return data
    media_type = image_type(data[:16])
    if media_type:
        if len(data) > IMAGE_BYTES_MAX:
            return error_result(f"read: {tool_input['path']} is an image of {len(data):,} "
                                f"bytes; the API takes at most {IMAGE_BYTES_MAX:,}.")
        source = {"type": "base64", "media_type": media_type,
                  "data": base64.b64encode(data).decode("ascii")}
        return ToolResult((
            {"type": "text", "text": f"{tool_input['path']}: {media_type}, {len(data):,} bytes"},
            {"type": "image", "source": source},
        ))
    if b"\0" in data[:8192]:
        return error_result(f"read: {tool_input['path']} is a binary file ({len(data):,} "
                            "bytes); read shows text files and PNG, JPEG, GIF and WebP images.")
    text = data.decode("utf-8", "replace")
    if not text:
        return text_result(f"{tool_input['path']} is empty.")
    first = tool_input.get("offset", 1)
    limit = tool_input.get("limit", READ_LINES_DEFAULT)
    shown, last, count = numbered_lines(text, first, limit)
    if first > count:
        return error_result(f"read: {tool_input['path']} has {count:,} lines; offset {first:,} "
                            "is past its end.")
    if first == 1 and last == count:
        return text_result(shown)
    more = f"; read on with offset {last + 1}" if last < count else ""
    return text_result(f"{shown}[lines {first:,} to {last:,} of {count:,}{more}]")


def write_file(path: Path, tool_input: Mapping[str, Any]) -> ToolResult:
    existed = path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = valid_text(tool_input["content"]).encode("utf-8")
    with open(path, "wb") as file:
        file.write(data)
    verb = "replaced" if existed else "created"
    return text_result(f"{verb} {tool_input['path']} ({len(data):,} bytes)")


def edit_file(path: Path, tool_input: Mapping[str, Any], timeout_seconds: float) -> ToolResult:
    shown = tool_input["path"]
    old, new = tool_input["old_text"], tool_input["new_text"]
    if old == "":
        return error_result("edit: old_text is empty; give the exact text to replace.")
    if old == new:
        return error_result("edit: old_text and new_text are the same; nothing to change.")
    data = read_regular(path, shown, timeout_seconds, "edit")
    if isinstance(data, ToolResult):
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return error_result(f"edit: {shown} is not UTF-8 text; edit changes text files only.")
    if "\r\n" in text and "\r" not in old:
        # the model writes "\n"; a file with Windows line ends holds "\r\n"
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    count = text.count(old)
    if count == 0:
        return error_result(f"edit: old_text does not occur in {shown}; read the file and "
                            "copy the text exactly, spaces and line breaks included.")
    if count > 1:
        return error_result(f"edit: old_text occurs {count} times in {shown}; include more "
                            "of the text around it so that it occurs exactly once.")
    at = text.index(old)
    line = text.count("\n", 0, at) + 1
    with open(path, "wb") as file:
        file.write(text.replace(old, new, 1).encode("utf-8"))
    return text_result(f"edited {shown} at line {line}")
