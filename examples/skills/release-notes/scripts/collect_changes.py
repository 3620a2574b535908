#!/usr/bin/env python3
"""Print one change per line: the subjects of the commits since a tag."""
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: collect_changes.py PREVIOUS_TAG", file=sys.stderr)
        return 2
    tag = sys.argv[1]
    result = subprocess.run(
        ["git", "log", "--no-merges", "--format=%s", f"{tag}..HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        print(result.stderr.strip() or "git log failed", file=sys.stderr)
        return result.returncode
    for line in result.stdout.splitlines():
        if line.strip():
            print(line.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
