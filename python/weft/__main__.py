"""`python3 -m weft info [--json]`: the Vulkan devices Weft sees, as `weft info` prints them.
`python3 -m weft conformance [--filter TEXT] [--device SELECT]`: the conformance cases on a device."""
import argparse
import json
import sys
from typing import Any, List, Mapping, Optional, Sequence

import weft


def _mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB"


def _print_devices(devices: Sequence[Mapping[str, Any]]) -> None:
    print(f"Weft {weft.__version__} ({weft.__file__}) — {len(devices)} Vulkan device(s)")
    for d in devices:
        print(f"\n* device {d['index']}: {d['name']}")
        print(f"    type {d['type']}, Vulkan {d['api_version']}, driver {d['driver']} ({d['driver_info']}), "
              f"vendor {d['vendor_id']:#x} device {d['device_id']:#06x}")
        print(f"    maxStorageBufferRange {_mib(d['max_storage_buffer_range'])}, device-local {_mib(d['device_local_bytes'])}, "
              f"subgroup size {d['subgroup_size']}, int64 {'yes' if d['shader_int64'] else 'no'}, "
              f"float16 {'yes' if d['shader_float16'] else 'no'}")
        if not d["usable"]:
            print(f"    not usable: {d['unusable_reason']}")


def _conformance(device: str, filter_text: str) -> int:
    cases = weft.conformance(weft.Device(device, validation=True), filter_text)
    for c in cases:
        print(f"{c['outcome']:5} {c['name']}  {c['detail']}")
    failed = [c for c in cases if c["outcome"] not in ("pass", "skip")]
    print(f"{len(cases) - len(failed)}/{len(cases)} passed or skipped")
    return 1 if failed or not cases else 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m weft", description="Weft from Python: devices and conformance.")
    commands = parser.add_subparsers(dest="command", required=True)
    info = commands.add_parser("info", help="the Vulkan devices Weft sees")
    info.add_argument("--json", action="store_true", help="one JSON array of device dicts")
    conformance = commands.add_parser("conformance", help="the conformance cases on a device, validation on")
    conformance.add_argument("--filter", default="", help="only cases whose name contains this")
    conformance.add_argument("--device", default="", help="an index or a name part ('' = WEFT_DEVICE or the best)")
    args = parser.parse_args(argv)
    try:
        if args.command == "info":
            devices = weft.devices()
            if args.json:
                print(json.dumps(devices, indent=2))
            else:
                _print_devices(devices)
            return 0
        return _conformance(args.device, args.filter)
    except weft.Error as e:
        print(f"weft: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
