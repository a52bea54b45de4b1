#!/usr/bin/env python3
"""Replace the bundled CT log list with a newer one of Apple's.

    scripts/refresh-ct-log-list.py FILE [--confirmed YYYY-MM-DD] [--source TEXT] [--into DIR]

FILE is Apple's list (valid.apple.com/ct/log_list/current_log_list.json, schema v5), downloaded by whoever runs
this: nothing is fetched here. The list is checked (JSON, schema v5, every log_id the SHA-256 of its key, one known
state per log) and copied with its metadata into Sources/TransportTrust/Resources/CTLogList, or DIR.
--confirmed is the day the list was known to be Apple's current one (default: today, UTC); an iPhone stops
enforcing CT 60 days after its list was last confirmed current, and so does this package with the bundled list.
"""
import argparse, base64, datetime, hashlib, json, os, sys

STATES = {"pending", "qualified", "usable", "readonly", "retired", "rejected"}


def fail(message):
    print(f"refresh-ct-log-list: {message}", file=sys.stderr)
    sys.exit(2)


def check(doc):
    if not isinstance(doc, dict) or not isinstance(doc.get("operators"), list):
        fail("the file is not a log list in Apple's schema v5: it has no 'operators' list")
    count = 0
    for o, op in enumerate(doc["operators"]):
        for kind in ("logs", "tiled_logs"):
            for l, log in enumerate(op.get(kind) or []):
                where = f"operators[{o}].{kind}[{l}] ({log.get('description', 'unnamed')})"
                try:
                    key = base64.b64decode(log["key"], validate=True)
                    log_id = base64.b64decode(log["log_id"], validate=True)
                except (KeyError, ValueError):
                    fail(f"{where}: 'key' and 'log_id' must be base64")
                if hashlib.sha256(key).digest() != log_id:
                    fail(f"{where}: 'log_id' is not the SHA-256 of 'key'")
                state = log.get("state")
                if not isinstance(state, dict) or len(state) != 1 or next(iter(state)) not in STATES:
                    fail(f"{where}: 'state' must hold exactly one of {', '.join(sorted(STATES))}")
                count += 1
    if count == 0:
        fail("the list has no logs")
    return count


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--confirmed", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    parser.add_argument("--source", default="Apple's CT log list (valid.apple.com/ct/log_list/current_log_list.json), schema v5")
    parser.add_argument("--into", default=os.path.join(here, "..", "Sources", "TransportTrust", "Resources", "CTLogList"))
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
    logs = check(doc)
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
    print(f"bundled CT log list: version {version}, {logs} logs, confirmed current {args.confirmed}")


if __name__ == "__main__":
    main()
