"""The MCP lines a person copies: Claude Code's in the user scope (a project's scope, the default,
gives Ever's tools in one folder only), and Codex's `config.toml` entry beside it in the README."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODEX = '[mcp_servers.ever]\ncommand = "ever"\nargs = ["mcp"]\n'


def test_every_claude_mcp_line_is_in_the_user_scope_and_the_readme_shows_codexs_entry():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "harness" / "chat" / "cli.py"]
    lines = [line for page in pages for line in page.read_text().splitlines() if re.search(r"claude mcp (add|remove)", line)]
    assert lines and all("claude mcp add --scope user ever" in line or "claude mcp remove --scope user ever" in line
                         for line in lines), lines
    assert "claude mcp add --scope user ever -- ever mcp" in (ROOT / "README.md").read_text()
    assert CODEX in (ROOT / "README.md").read_text()
