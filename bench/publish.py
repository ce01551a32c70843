#!/usr/bin/env python3
"""Puts a table between two marker lines of bench/RESULTS.md: the one place the bench scripts
rewrite their results (bench/lib.bash, publish_table).

    bench/publish.py RESULTS BEGIN END TABLE [HEADING]

The lines from BEGIN to END (the markers kept) get the text of the file TABLE in between. When
RESULTS has no BEGIN line yet, the block is appended, under "## HEADING" if one is given.
"""
import os
import sys


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit("usage: bench/publish.py RESULTS BEGIN END TABLE [HEADING]")
    path, begin, end, table_path = sys.argv[1:5]
    heading = sys.argv[5] if len(sys.argv) == 6 else ""
    with open(table_path) as file:
        table = file.read()
    if table and not table.endswith("\n"):
        table += "\n"
    text = ""
    if os.path.exists(path):
        with open(path) as file:
            text = file.read()
    lines = text.splitlines(keepends=True)
    if begin + "\n" in lines and end + "\n" in lines[lines.index(begin + "\n"):]:
        first = lines.index(begin + "\n")
        last = first + lines[first:].index(end + "\n")
        text = "".join(lines[: first + 1]) + table + "".join(lines[last:])
    else:
        if not text:
            text = "# Benchmark results\n"
        text += "\n" + (f"## {heading}\n\n" if heading else "") + begin + "\n" + table + end + "\n"
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w") as file:
        file.write(text)
    os.replace(temporary, path)


if __name__ == "__main__":
    main()
