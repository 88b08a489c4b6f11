"""Checks the JSON lines of `weft bench db --tpch DIR --queries ...` (stdin): every line parses,
the setup line comes first, then one line per named query in order, each with Weft's rows equal
to SQLite's, positive times, and ratios that are the quotients of the medians printed beside
them. DuckDB is either reported missing (required with --duckdb missing) or agrees with SQLite's
row count."""
import argparse
import json
import math
import sys


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9)


def weft_basis_ms(line):
    """The Weft time the ratios divide by: GPU time when the replay is the whole query."""
    if line["weft_gpu_covers_query"]:
        assert line["weft_ratio_basis"] == "gpu"
        return line["weft_gpu_ms_median"]
    assert line["weft_ratio_basis"] == "wall"
    return line["weft_wall_ms"]


def check_duckdb(line, mode):
    if "duckdb" in line:
        assert line["duckdb"].startswith("missing: "), line["duckdb"]
        assert line["duckdb_over_weft"] is None and line["duckdb_over_weft_wall"] is None, "a ratio without DuckDB"
        return "missing"
    assert mode != "missing", "DuckDB ran although its package should be missing"
    assert "duckdb_error" not in line, line.get("duckdb_error")
    assert line["duckdb_rows"] == line["sqlite_rows"] and line["duckdb_rows_match_sqlite"], line
    assert 0 < line["duckdb_ms_best"] <= line["duckdb_ms_median"]
    assert close(line["duckdb_over_weft"], line["duckdb_ms_median"] / weft_basis_ms(line))
    assert close(line["duckdb_over_weft_wall"], line["duckdb_ms_median"] / line["weft_wall_ms"])
    return "ran"


def check_query(line, name, runs):
    assert line["bench"] == "db.tpch" and line["query"] == name, (name, line)
    for refusal in ("weft_error", "sqlite_error", "weft_difference"):
        assert refusal not in line, line[refusal]
    assert line["weft_matches_sqlite"] is True
    assert line["weft_rows"] == line["sqlite_rows"] > 0
    assert line["lineitem_rows"] > 0 and line["runs"] == runs
    assert line["weft_gpu_runs"] == runs and line["sqlite_runs"] == runs
    assert 0 < line["weft_gpu_ms_best"] <= line["weft_gpu_ms_median"]
    assert 0 < line["sqlite_ms_best"] <= line["sqlite_ms_median"]
    parts = line["weft_plan_ms"] + line["weft_build_ms"] + line["weft_run_ms"]
    assert line["weft_wall_ms"] > 0 and close(line["weft_wall_ms"], parts)
    assert close(line["sqlite_over_weft"], line["sqlite_ms_median"] / weft_basis_ms(line))
    assert close(line["sqlite_over_weft_wall"], line["sqlite_ms_median"] / line["weft_wall_ms"])
    assert " ms" in line["weft_top_stages"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", required=True)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--duckdb", choices=["missing", "any"], default="any")
    parser.add_argument("--prior-passes", default="", help="queries whose planning runs device passes")
    args = parser.parse_args()
    lines = [json.loads(text) for text in sys.stdin.read().splitlines() if text.strip()]
    names = args.queries.split(",")
    assert len(lines) == 1 + len(names), f"{len(lines)} lines for {len(names)} queries"
    assert lines[0]["bench"] == "db.tpch.setup", lines[0]
    duckdb = [check_duckdb(line, args.duckdb) for line in lines[1:]]
    for line, name in zip(lines[1:], names):
        check_query(line, name, args.runs)
        assert line["weft_gpu_covers_query"] == (name not in args.prior_passes.split(",")), line
    print(f"checked {len(names)} queries: Weft matches SQLite; DuckDB {', '.join(duckdb)}")


if __name__ == "__main__":
    main()
