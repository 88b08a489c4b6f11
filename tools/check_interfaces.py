#!/usr/bin/env python3
"""Fails when code includes another workload's private header.

A workload is used from outside its folder only through the headers its weft_add_workload()
call lists as INTERFACE (C++ and GLSL alike); everything else in its folder is its own. This
reads the registrations (build/registry/interfaces.txt: "name folder header...") and checks
every #include in the repository's sources: an include that names a file of workload W, made
from outside W's folder, must name one of W's interface headers, by its plain file name.

    check_interfaces.py INTERFACES_TXT SOURCE_ROOT
"""
import re
import sys
from pathlib import Path

EXTS = {".cpp", ".h", ".c", ".comp", ".glsl"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main(interfaces_txt: str, root: str) -> int:
    root_path = Path(root).resolve()
    workloads = []  # (name, folder, interface file names)
    for line in Path(interfaces_txt).read_text().split("\n"):
        parts = line.split()
        if len(parts) >= 2:
            workloads.append((parts[0], Path(parts[1]).resolve(), {Path(h).name for h in parts[2:]}))
    private = {}  # header file name -> workloads whose private header has that name
    for name, folder, interface in workloads:
        for f in folder.rglob("*"):
            if f.suffix in {".h", ".glsl"} and f.name not in interface:
                private.setdefault(f.name, []).append((name, folder))
    own = {name: {f.name for f in folder.rglob("*") if f.suffix in {".h", ".glsl"}} for name, folder, _ in workloads}
    problems = []
    for f in sorted(root_path.rglob("*")):
        if f.suffix not in EXTS or "build" in f.relative_to(root_path).parts[:1]:
            continue
        owner = next((name for name, folder, _ in workloads if folder in f.parents), None)
        for included in INCLUDE.findall(f.read_text(errors="ignore")):
            if included.startswith("../"):
                target = (f.parent / included).resolve()
                home = next((folder for name, folder, _ in workloads if name == owner), root_path)
                if home not in target.parents:
                    problems.append(f"{f.relative_to(root_path)}: includes {included} by a relative path out of its folder")
                continue
            if owner and Path(included).name in own[owner]:
                continue  # its own workload's header
            for name, folder in private.get(Path(included).name, []):
                if name != owner and not (f.parent / included).exists():
                    problems.append(f"{f.relative_to(root_path)}: includes {included}, which workload '{name}' keeps to itself "
                                    f"(not in its INTERFACE)")
    for p in problems:
        print(p)
    print(f"{len(problems)} private includes across workloads" if problems else "every cross-workload include is an interface header")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
