"""Strategy: every file of the chat is read and written through the disk the memory was given
(harness/memory/disk.py), so a disk that fails or loses operations sees them all. A lint walks the
AST of harness/memory/*.py and of harness/calls/usage.py (the usage log appends beside the chat's)
and says each call that reaches a file past the disk: an `os` file call, `open(`, a `Path` method
that reads, writes or lists, `fcntl`'s locks, `shutil`, an array's `fromfile`/`tofile`. The disk
module itself is the seam; the few calls allowed elsewhere are named below, each with its reason.
The lint runs on the real tree (nothing found) and on a copy with a call planted (found, and said
once); the mutant `inbox_read_past_the_disk` plants one in the product.
"""

import ast
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEAM = "harness/memory/disk.py"
LINTED = ("harness/memory/*.py", "harness/calls/usage.py")

OS_FILE_CALLS = frozenset(
    "open close read pread readv write pwrite writev fsync fdatasync ftruncate truncate lseek fdopen "
    "replace rename renames unlink remove rmdir mkdir makedirs listdir scandir walk stat lstat fstat "
    "chmod fchmod chown link symlink access set_blocking sendfile copy_file_range".split())
PATH_FILE_METHODS = frozenset(
    "read_bytes read_text write_bytes write_text unlink mkdir rmdir touch glob rglob iterdir exists "
    "is_dir is_file lstat chmod rename symlink_to hardlink_to samefile stat fromfile tofile".split())
MODULES_PAST_THE_DISK = frozenset("shutil fcntl sqlite3 tempfile".split())
IO_FILE_CALLS = frozenset("open FileIO open_code".split())

# (file, call) -> why it may reach the machine's disk directly
ALLOWED = {
    ("harness/memory/search.py", "os.access"): "SQLite's search database is a cache rebuilt from the logs, "
                                               "kept outside the seam (its docstring says so)",
    ("harness/memory/search.py", "os.open"): "the search database made 0600 before SQLite opens it",
    ("harness/memory/search.py", "os.close"): "the search database made 0600 before SQLite opens it",
    ("harness/memory/search.py", "os.lstat"): "a FIFO or a device in the search database's place is not opened",
    ("harness/memory/search.py", ".unlink"): "a damaged search database removed, to be rebuilt",
    ("harness/memory/search.py", "sqlite3.connect"): "SQLite reads and writes its file through its own layer",
    ("harness/memory/home.py", "os.lstat"): "`ever files` and `ever doctor` list the home's paths and modes; "
                                            "they read no file's bytes and write nothing",
    ("harness/memory/home.py", "os.scandir"): "`ever files` and `ever doctor` list the home's paths and modes",
    ("harness/memory/home.py", ".stat"): "`ever files` and `ever doctor` list the home's paths and modes",
    ("harness/memory/backup.py", "shutil.which"): "finds the restic command, not a file of the chat",
    ("harness/memory/backup.py", "tempfile.TemporaryDirectory"): "restic's staging folder and the restore "
                                                                 "test's home, scratch of the machine's own",
    ("harness/memory/backup.py", "os.walk"): "the manifest found in a restic snapshot restored to scratch",
    ("harness/memory/forget.py", "os.walk"): "the proof reads every file under the home and the backups as the "
                                             "machine holds them, whatever wrote them",
    ("harness/memory/forget.py", "os.lstat"): "the proof: a socket or a link is said, not followed",
    ("harness/memory/forget.py", "open"): "the proof reads every file as the machine holds it",
    ("harness/memory/forget.py", ".exists"): "the proof: a search database left behind is not clean",
    ("harness/memory/forget.py", "tempfile.TemporaryDirectory"): "a restic snapshot restored to be searched",
}


def on_the_disk(receiver: ast.expr) -> bool:
    """`disk.x(...)`, `self.disk.x(...)`, `store.disk.x(...)`: a call the seam answers."""
    return (isinstance(receiver, ast.Name) and receiver.id == "disk") or (
        isinstance(receiver, ast.Attribute) and receiver.attr == "disk")


def call_name(node: ast.Call) -> str | None:
    """The name a call reaches a file by (`os.write`, `open`, `.read_bytes`), or None."""
    func = node.func
    if isinstance(func, ast.Name) and func.id == "open":
        return "open"
    if not isinstance(func, ast.Attribute) or on_the_disk(func.value):
        return None
    if isinstance(func.value, ast.Name) and func.value.id == "os" and func.attr in OS_FILE_CALLS:
        return f"os.{func.attr}"
    if isinstance(func.value, ast.Name) and func.value.id == "io" and func.attr in IO_FILE_CALLS:
        return f"io.{func.attr}"
    if isinstance(func.value, ast.Name) and func.value.id in MODULES_PAST_THE_DISK:
        return f"{func.value.id}.{func.attr}"
    if func.attr in PATH_FILE_METHODS:
        return f".{func.attr}"
    return None


def past_the_disk(root: Path) -> list[str]:
    """One sentence for each call in the linted files that reaches a file past the disk."""
    from laws.subset import parsed

    found = []
    for pattern in LINTED:
        for path in sorted(root.glob(pattern)):
            where = path.relative_to(root).as_posix()
            if where == SEAM:
                continue
            for node in ast.walk(parsed(path)):
                if isinstance(node, ast.ImportFrom) and node.module == "os":
                    for alias in node.names:
                        if alias.name in OS_FILE_CALLS:
                            found.append(f"{where}:{node.lineno}: imports os.{alias.name}, which reaches a file "
                                         "past the disk it was given")
                if not isinstance(node, ast.Call):
                    continue
                name = call_name(node)
                if name is not None and (where, name) not in ALLOWED:
                    found.append(f"{where}:{node.lineno}: calls {name}(), which reaches a file past the disk it "
                                 f"was given ({SEAM})")
    return sorted(found, key=lambda sentence: (sentence.split(":")[0], int(sentence.split(":")[1])))


def test_every_file_of_the_chat_is_reached_through_the_disk_it_was_given():
    assert past_the_disk(ROOT) == []


def test_each_allowed_call_is_still_there_so_none_is_allowed_for_nothing():
    used = set()
    for file, name in ALLOWED:
        tree = ast.parse((ROOT / file).read_text())
        if any(isinstance(node, ast.Call) and call_name(node) == name for node in ast.walk(tree)):
            used.add((file, name))
    assert used == set(ALLOWED)


def test_a_write_past_the_disk_is_found_and_said_once(tmp_path: Path):
    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    inbox = tmp_path / "harness" / "memory" / "inbox.py"
    inbox.write_text(inbox.read_text() + "\n\ndef planted(fd, path):\n    os.fsync(fd)\n"
                     "    with open(path, 'ab') as f:\n        f.write(b'x')\n    path.unlink()\n")
    said = past_the_disk(tmp_path)
    assert [sentence.split(": calls ")[1].split("(")[0] for sentence in said] == ["os.fsync", "open", ".unlink"]
    assert all(sentence.startswith("harness/memory/inbox.py:") for sentence in said)
