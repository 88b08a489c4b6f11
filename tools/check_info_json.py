"""ctest weft_info_json: `weft info --json` run with WEFT_WITHOUT_FEATURES=shaderFloat64 names the
withheld feature as missing for the database workload, and nothing for one that does not need it."""
import json
import sys

device = json.load(sys.stdin)["devices"][0]
missing = {w["name"]: w["missing"] for w in device["workloads"]}
assert "shaderFloat64" not in device["features"], device["features"]
assert "shaderFloat64" in missing["db"], missing
assert missing["histogram"] == [], missing
print("ok:", missing)
