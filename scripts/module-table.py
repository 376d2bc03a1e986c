#!/usr/bin/env python3
"""Prints the package's modules as a Markdown table: each target of Package.swift with its folder,
its source files (Swift, and C for the C targets) and their lines, at one commit or side by side at
two. docs/ARCHITECTURE.md shows the tree before and after a change of the module layout this way.

Usage: scripts/module-table.py [BEFORE] [AFTER]   (default HEAD; reads git only, builds nothing)

A file linked into a folder (a symbolic link, as Tests/GoldenSupport's are) is not counted there:
it is counted once, in the target whose folder holds it, if any.
"""
import re
import subprocess
import sys


def git(*arguments):
    return subprocess.run(["git", *arguments], capture_output=True, text=True, check=True).stdout


def targets(manifest):
    """(kind, name, folder) of each target, in the manifest's order."""
    found = []
    for match in re.finditer(r'\.(target|testTarget|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"', manifest):
        kind, name = match.groups()
        rest = manifest[match.end():]
        following = re.search(r'\.(?:target|testTarget|executableTarget|systemLibrary)\(\s*name:', rest)
        declaration = rest[:following.start()] if following else rest
        path = re.search(r'path:\s*"([^"]+)"', declaration)
        folder = path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name
        found.append((kind, name, folder))
    return found


def modules(commit):
    """{name: (folder, files, lines)} at `commit`, in the manifest's order."""
    manifest = git("show", f"{commit}:Package.swift")
    sources = [
        line.split(None, 3)[3] for line in git("ls-tree", "-r", commit).splitlines()
        if line.split(None, 1)[0] == "100644" and line.endswith((".swift", ".c", ".h"))
    ]
    table = {}
    for kind, name, folder in targets(manifest):
        if kind == "systemLibrary":
            continue
        mine = [path for path in sources if path.startswith(folder.rstrip("/") + "/")]
        lines = sum(git("show", f"{commit}:{path}").count("\n") for path in mine)
        table[name] = (folder, len(mine), lines)
    return table


def main():
    commits = sys.argv[1:3] or ["HEAD"]
    tables = [modules(commit) for commit in commits]
    names = list(tables[-1]) + [name for name in tables[0] if name not in tables[-1]]
    if len(tables) == 1:
        print("| module | folder | files | lines |")
        print("|---|---|---:|---:|")
    else:
        print(f"| module | folder | files at {commits[0]} | lines | files at {commits[1]} | lines |")
        print("|---|---|---:|---:|---:|---:|")
    for name in names:
        folder = next(table[name][0] for table in reversed(tables) if name in table)
        cells = [f"{table[name][1]} | {table[name][2]:,}" if name in table else "— | —" for table in tables]
        print(f"| `{name}` | `{folder}/` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
