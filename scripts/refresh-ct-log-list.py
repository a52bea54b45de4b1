#!/usr/bin/env python3
"""Replace the bundled CT log list with a newer one of Apple's.

    scripts/refresh-ct-log-list.py FILE [--confirmed YYYY-MM-DD] [--source TEXT] [--into DIR] [--ats PATH]

FILE is Apple's list (valid.apple.com/ct/log_list/current_log_list.json, schema v5), downloaded by whoever runs
this (or by `ats ct update`, which keeps it in the user's cache): nothing is fetched here. The list is checked by
`ats ct check` (the library's check: schema v5, every log_id the SHA-256 of its key, one known state per log, a
version, a bounded size) and copied with its metadata into Sources/TransportTrust/Resources/CTLogList, or DIR.
--confirmed is the day the list was known to be Apple's current one (default: today, UTC); an iPhone stops
enforcing CT 60 days after its list was last confirmed current, and so does this package with the bundled list.
"""
import argparse, datetime, json, os, subprocess, sys


def fail(message):
    print(f"refresh-ct-log-list: {message}", file=sys.stderr)
    sys.exit(2)


def check(ats, path):
    """The library's own check (`ats ct check`), the one `ats ct update` applies: schema v5, every log_id the SHA-256
    of its key, one known state per log, a version, a bounded size."""
    if not os.access(ats, os.X_OK):
        fail(f"{ats} is not built; run 'swift build --product ats' first, or give --ats PATH")
    result = subprocess.run([ats, "ct", "check", path], capture_output=True, text=True)
    if result.returncode != 0:
        fail(result.stderr.strip().removeprefix("ats ct check: ") or f"ats ct check exited {result.returncode}")
    return result.stdout.strip()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--confirmed", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    parser.add_argument("--source", default="Apple's CT log list (valid.apple.com/ct/log_list/current_log_list.json), schema v5")
    parser.add_argument("--into", default=os.path.join(here, "..", "Sources", "TransportTrust", "Resources", "CTLogList"))
    parser.add_argument("--ats", default=os.path.join(here, "..", ".build", "debug", "ats"), help="the ats binary whose check is applied")
    args = parser.parse_args()
    try:
        datetime.date.fromisoformat(args.confirmed)
    except ValueError:
        fail(f"--confirmed '{args.confirmed}' is not a day like 2026-11-25")
    try:
        raw = open(args.file, "rb").read()
        doc = json.loads(raw)
    except OSError as e:
        fail(f"cannot read {args.file}: {e.strerror}")
    except ValueError as e:
        fail(f"{args.file} is not JSON: {e}")
    checked = check(args.ats, args.file)
    version = str(doc.get("version", "unknown"))
    os.makedirs(args.into, exist_ok=True)
    with open(os.path.join(args.into, "apple_log_list.json"), "wb") as f:
        f.write(raw)
    metadata = {
        "version": version,
        "confirmedCurrent": args.confirmed,
        "source": f"{args.source}, version {version}",
        "copied": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "note": "confirmedCurrent is the day the list was last known to be Apple's current one; an iPhone stops enforcing CT "
                "when its list has not been confirmed current for 60 days. scripts/refresh-ct-log-list.py rewrites both files.",
    }
    with open(os.path.join(args.into, "metadata.json"), "w") as f:
        json.dump(metadata, f, indent=2)
        f.write("\n")
    print(f"bundled CT log list: {checked}; confirmed current {args.confirmed}")


if __name__ == "__main__":
    main()
