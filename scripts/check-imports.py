#!/usr/bin/env python3
"""Fails when a target of this package imports a module that its Package.swift entry does not
declare: a target of this package, or a module of a product it names. A module reached only
through another target's dependencies builds today and breaks when that target changes, so every
import is declared where it is used. (SwiftPM's `--explicit-target-dependency-import-check`
covers the package's own targets, and accepts one reached through another's dependencies.)

Usage: scripts/check-imports.py  (after the packages are resolved: it reads their manifests)
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Modules of the toolchain and the system: never declared in a manifest.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "Dispatch", "Glibc", "Musl", "Darwin", "Testing", "XCTest", "Synchronization", "Observation",
    "RegexBuilder", "Distributed", "_Concurrency", "_StringProcessing", "CoreFoundation", "os",
}
IMPORT = re.compile(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |package |internal |private |fileprivate )?"
                    r"import (?:struct |class |enum |func |protocol |typealias |var |let )?([A-Za-z_]\w*)")


def swift_package(path, *arguments):
    result = subprocess.run(["swift", "package", "--package-path", path, *arguments],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def dependency_paths(node, paths):
    for dependency in node.get("dependencies", []):
        paths[dependency["identity"]] = dependency["path"]
        dependency_paths(dependency, paths)
    return paths


def main():
    products, external = {}, set()
    for identity, path in dependency_paths(swift_package(ROOT, "show-dependencies", "--format", "json"), {}).items():
        manifest = swift_package(path, "dump-package")
        external |= {target["name"] for target in manifest["targets"]}
        for product in manifest["products"]:
            products[(identity, product["name"])] = set(product["targets"])
    manifest = swift_package(ROOT, "dump-package")
    own = {target["name"]: target for target in manifest["targets"]}
    failures = []
    for name, target in sorted(own.items()):
        if target["type"] in ("plugin", "macro", "system"):
            continue
        folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
        imported = set()
        for file in glob.glob(os.path.join(ROOT, folder, "**", "*.swift"), recursive=True):
            with open(file, encoding="utf-8", errors="replace") as source:
                imported |= {match.group(1) for match in map(IMPORT.match, source) if match}
        declared = {name}
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
            if "product" in dependency:
                product, package = dependency["product"][0], dependency["product"][1]
                declared |= products.get((package.lower(), product), set()) | {product}
        missing = sorted(m for m in imported - declared - TOOLCHAIN if m in own or m in external)
        if missing:
            failures.append(f"{name} ({folder}) imports {', '.join(missing)} without declaring it in Package.swift")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"every import of the {len(own)} targets is declared in Package.swift")


if __name__ == "__main__":
    main()
