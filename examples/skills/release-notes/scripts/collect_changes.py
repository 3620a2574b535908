#!/usr/bin/env python3
"""Print one change per line: the subjects of the commits since a tag.

Usage: collect_changes.py PREVIOUS_TAG [REPOSITORY_FOLDER]

The repository defaults to the one the script runs in. In skillgate's
sandbox a script sees only its own skill folder, so pass the repository's
folder and have the server's owner grant it as "read" in MCP_SKILL_RUN.
"""
import subprocess
import sys


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print("usage: collect_changes.py PREVIOUS_TAG [REPOSITORY_FOLDER]", file=sys.stderr)
        return 2
    tag = sys.argv[1]
    where = ["-C", sys.argv[2]] if len(sys.argv) == 3 else []
    try:
        result = subprocess.run(
            ["git", *where, "log", "--no-merges", "--format=%s", f"{tag}..HEAD"],
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        print("git was not found on PATH", file=sys.stderr)
        return 127
    if result.returncode != 0:
        print(result.stderr.strip() or "git log failed", file=sys.stderr)
        if not where:
            print(
                "pass the repository's folder as the second argument (in skillgate's sandbox "
                "the server's owner grants it as \"read\" in MCP_SKILL_RUN)",
                file=sys.stderr,
            )
        return result.returncode
    for line in result.stdout.splitlines():
        if line.strip():
            print(line.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
