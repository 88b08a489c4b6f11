#!/usr/bin/env python3
"""The report of a `weft bench all` folder: report.md (one table per benchmark, every figure as
measured, the ratios against peers run in the same process first) and one plot per benchmark
with ratios (matplotlib; the report says so when it is missing). The folder holds, per bench,
NAME.run.json (exit code, seconds) and NAME.jsonl (its lines); bench.jsonl is written with all
of them together.

    python3 tools/bench_report.py DIR [--doc docs/benchmarks.md --plots-dir docs/bench]

--doc replaces the text between the markers `<!-- bench-all:begin -->` and
`<!-- bench-all:end -->` in that Markdown file with the report, its plots copied to --plots-dir
(linked relative to the document).
"""
import argparse
import json
import os
import shutil
import sys

CONTEXT = ("bench", "device", "device_type")
BEGIN, END = "<!-- bench-all:begin -->", "<!-- bench-all:end -->"


def read_lines(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{n}: not a JSON line ({e.msg})")
    return out


def is_ratio(key):
    return (key.startswith("ratio") or "_vs_" in key or "speedup" in key or key.endswith("_over_vulkan_gpu")
            or key == "fraction_of_copy_bound")


def cell(value):
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "**no**"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def group_of(line):
    return line.get("bench", "?").split(".")[0]


def table(lines):
    keys = []
    for line in lines:
        for k in line:
            if k not in CONTEXT and k not in keys:
                keys.append(k)
    order = {k: n for n, k in enumerate(keys)}
    keys.sort(key=lambda k: (not is_ratio(k), order[k]))
    rows = ["| bench | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    for line in lines:
        rows.append("| " + line.get("bench", "?") + " | " + " | ".join(cell(line.get(k)) for k in keys) + " |")
    return "\n".join(rows)


def line_label(line, lines):
    """The line's kind and the settings that tell it from its siblings (shape, mode, frame...):
    keys holding strings or whole numbers whose values differ between lines of its kind."""
    kind = line.get("bench", "?")
    siblings = [l for l in lines if l.get("bench") == kind]
    timed = ("_ns", "_us", "_ms", "_s", "_per_s", "_per_step", "_per_frame")
    setting = lambda k, v: (isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))) and not k.endswith(timed)
    varying = [k for k, v in line.items()
               if k not in CONTEXT and setting(k, v) and len({json.dumps(l.get(k)) for l in siblings}) > 1]
    parts = [f"{k}={line[k]}" for k in varying[:2]]
    return kind.split(".", 1)[-1] + (" " + ", ".join(parts) if parts else "")


def plot(group, lines, out_dir):
    """Bar chart of the group's ratios, one bar per line and ratio key; None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    bars = []
    for line in lines:
        label = line_label(line, lines)
        for k, v in line.items():
            if is_ratio(k) and isinstance(v, (int, float)) and not isinstance(v, bool):
                bars.append((f"{label}: {k}", float(v)))
    if not bars:
        return None
    fig, ax = plt.subplots(figsize=(11, 0.32 * len(bars) + 1.2))
    ax.barh([b[0] for b in bars], [b[1] for b in bars], color="#4477aa")
    ax.axvline(1.0, color="#aa3377", linewidth=1)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel("ratio (1 = parity with the peer; see each key for its direction)")
    ax.set_title(f"weft bench {group}: ratios against peers measured in the same run", fontsize=10)
    fig.tight_layout()
    name = f"{group}.png"
    fig.savefig(os.path.join(out_dir, name), dpi=90)
    plt.close(fig)
    return name


def gather(folder):
    """Every bench's run record and lines, in the order `weft bench all --list` gives them."""
    runs = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".run.json"):
            runs += read_lines(os.path.join(folder, name))
    order = {"engine": 0, "tokenizer": 2}
    runs.sort(key=lambda r: (order.get(r["bench"], 1), r["bench"]))
    lines = []
    for r in runs:
        lines += read_lines(os.path.join(folder, r["bench"] + ".jsonl"))
    with open(os.path.join(folder, "bench.jsonl"), "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    return lines, runs


def report(folder, plots_dir, plot_prefix):
    lines, runs = gather(folder)
    devices = sorted({l.get("device") for l in lines if l.get("device")})
    md = ["## Results of `weft bench all`", ""]
    md.append(f"Devices: {', '.join(devices) if devices else 'none reported'}. "
              "Every ratio compares figures measured in the same process run; a peer that was "
              "not installed appears as `missing`, never as a number.")
    md += ["", "| bench | exit | seconds | lines |", "|---|---|---|---|"]
    for r in runs:
        md.append(f"| {r['bench']} | {r['exit_code']} | {r['seconds']:.1f} | {r['lines']} |")
    groups = {}
    for line in lines:
        groups.setdefault(group_of(line), []).append(line)
    plotted = False
    for group, glines in groups.items():
        md += ["", f"### {group}"]
        by_name = {}
        for line in glines:
            by_name.setdefault(line.get("bench", "?"), []).append(line)
        for blines in by_name.values():
            md += ["", table(blines)]
        name = plot(group, glines, plots_dir)
        if name:
            plotted = True
            md += ["", f"![{group} ratios]({plot_prefix}{name})"]
    if lines and not plotted:
        md += ["", "(No plots: matplotlib is not installed, or no benchmark printed a ratio.)"]
    return "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--doc", help="Markdown file whose bench-all section is replaced")
    ap.add_argument("--plots-dir", help="where the plots go for --doc (default: beside the document)")
    a = ap.parse_args()
    if not a.doc:
        text = report(a.folder, a.folder, "")
        with open(os.path.join(a.folder, "report.md"), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"report: {os.path.join(a.folder, 'report.md')}", file=sys.stderr)
        return
    plots_dir = a.plots_dir or os.path.dirname(os.path.abspath(a.doc))
    os.makedirs(plots_dir, exist_ok=True)
    prefix = os.path.relpath(plots_dir, os.path.dirname(os.path.abspath(a.doc))) + "/"
    text = report(a.folder, plots_dir, prefix)
    with open(a.doc, encoding="utf-8") as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{a.doc}: no {BEGIN} ... {END} section to replace")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(a.doc, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + text + END + tail)
    shutil.copy(os.path.join(a.folder, "bench.jsonl"), os.path.join(plots_dir, "bench.jsonl"))
    print(f"updated {a.doc}; plots and JSON lines in {plots_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
