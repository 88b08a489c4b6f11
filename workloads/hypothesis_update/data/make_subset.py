#!/usr/bin/env python3
"""Writes the in-repo subset of Monty's recorded hypothesis-update runs.

The full recordings (tbp.monty v0.46.0 on two synthetic object graphs, 12 steps per run, about
60 MB) are reference material kept outside the repository. The tests and conformance cases need
only the first steps of each run: every array is recorded per step (inputs as Monty passed them
and the outputs it produced), so a prefix of a run is itself a complete run. This script copies
that prefix and trims run.json to it.

    python3 make_subset.py FULL_MONTY_DIR OUT_DIR      # OUT_DIR: this folder's monty/

The full runs stay an optional extended check: WEFT_MONTY_FIXTURES=FULL_MONTY_DIR (see
../README.md).
"""
import json
import shutil
import sys
from pathlib import Path

# Steps kept per run: the default updater with displacement on both objects, and the burst
# updater across the first steps of its sampling burst (burst steps 5, 4, 3, 2 left).
KEEP = {"default_cylinder": 3, "default_sphere": 2, "burst_cylinder": 4, "burst_sphere": 3}


def main(full: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(full / "objects", out / "objects", dirs_exist_ok=True)
    for run, steps in KEEP.items():
        doc = json.loads((full / run / "run.json").read_text())
        doc["steps"] = doc["steps"][:steps]
        prefixes = tuple(f"step{s:02d}/" for s in range(steps))
        doc["npz_keys"] = [k for k in doc["npz_keys"] if k.startswith(prefixes)]
        (out / run).mkdir(parents=True, exist_ok=True)
        (out / run / "run.json").write_text(json.dumps(doc, indent=1) + "\n")
        for s in range(steps):
            shutil.copytree(full / run / f"step{s:02d}", out / run / f"step{s:02d}", dirs_exist_ok=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
