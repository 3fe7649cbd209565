"""Strategy: no tracked file holds a merge's conflict block. Every file `git ls-files` names is read
as bytes; a block is a line opening with seven `<` and a space, then, further down, a line opening
with seven `>` and a space. Seven `=` alone on a line is left out of the rule: Markdown underlines
a heading with it, and a block is caught by its two ends anyway. The rule is run on planted texts
first, so a scan that finds nothing is a scan that could have found something.
"""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# written as repeats, so this file holds no marker itself
OURS = "<" * 7 + " "
THEIRS = ">" * 7 + " "
SPLIT = "=" * 7
BLOCK = re.compile(rb"^" + re.escape(OURS.encode()) + rb".*?^" + re.escape(THEIRS.encode()), re.M | re.S)


def conflict_blocks(data: bytes) -> list[int]:
    """The 1-based line numbers where a conflict block opens."""
    return [data.count(b"\n", 0, found.start()) + 1 for found in BLOCK.finditer(data)]


def test_a_planted_conflict_block_is_found_and_a_markdown_underline_is_not():
    planted = f"# Title\n{OURS}HEAD\none\n{SPLIT}\ntwo\n{THEIRS}branch\nafter\n".encode()
    assert conflict_blocks(planted) == [2]
    underlined = f"Title\n{SPLIT}\n\nText.\n".encode()
    assert conflict_blocks(underlined) == []
    # a marker quoted inside a line is no block
    quoted = f"the markers `{OURS}` and `{THEIRS}`\n".encode()
    assert conflict_blocks(quoted) == []


def test_no_tracked_file_holds_a_conflict_block():
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    paths = [ROOT / name.decode() for name in listed.split(b"\0") if name]
    assert len(paths) > 100  # the listing worked: the tree has hundreds of files
    found = {str(path.relative_to(ROOT)): conflict_blocks(path.read_bytes())
             for path in paths if path.is_file()}
    assert {path: lines for path, lines in found.items() if lines} == {}
