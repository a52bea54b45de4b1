#!/usr/bin/env python3
"""Mutation run over the inputs people hand to `ats`: Info.plists (XML and binary) and .ipa archives through `ats audit`, pin
configurations (every format `ats pins --format` writes) through `ats pins --pin-file`, and PEM chains through
`ats verify`. Every run must end with exit status 0, 1 or 2 within the time limit: a crash or a hang fails. A
changed PEM chain must not be trusted unless its certificates decode to the original ones.

The seeds are the files in Examples/ and what `ats pins` generates from them. Mutations: random bytes, special
bytes and markup, truncation, deleted and repeated runs. Each failing input is kept in the work folder.

    scripts/fuzz-inputs.py ATS [--seed N] [--runs N] [--kinds plist,ipa,pins,pem] [--work DIR]
Exit status: 0 clean, 1 a crash or a hang, 2 usage.
"""
import argparse, base64, glob, io, os, plistlib, random, re, subprocess, sys, tempfile, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "Examples")
CHAIN, ANCHOR = os.path.join(EXAMPLES, "chain.pem"), os.path.join(EXAMPLES, "root.pem")
SPECIALS = [b"<", b">", b"&", b'"', b"\x00", b"\xff", b"\xc3\x28", b"{", b"}", b"[", b"]", b"\n", b"=", b"*.", b"..",
            b"<!DOCTYPE a [<!ENTITY x \"xx\">]>", b"&x;", b"<![CDATA[", b"]]>", b"<dict>", b"</dict>", b"<array>",
            b"<key>", b"</key>", b"<?xml-x ?>", b"sha256/", b"-----BEGIN CERTIFICATE-----", b"-----END CERTIFICATE-----"]


def mutate(rng, data):
    b = bytearray(data)
    kind = rng.random()
    if kind < 0.35:
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind < 0.55:
        i = rng.randrange(len(b))
        b = b[:i] + rng.choice(SPECIALS) + b[i:]
    elif kind < 0.7:
        b = b[:rng.randrange(1, len(b))]
    elif kind < 0.85:
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 60))
        b = b[:j] + b[i:j] * rng.randint(1, 40) + b[j:]
    elif kind < 0.95:
        i = rng.randrange(len(b))
        b = b[:i] + b[min(len(b), i + rng.randint(1, 40)):]
    else:
        # A binary plist's trailer and offset table sit at its end.
        i = max(0, len(b) - rng.randint(1, 40))
        b[i] = rng.choice([0, 1, 2, 4, 8, 0x7F, 0xFF])
    return bytes(b)


def seeds(ats, kind):
    if kind == "plist":
        out = []
        for path in sorted(glob.glob(os.path.join(EXAMPLES, "ATS", "*.plist"))):
            with open(path, "rb") as f:
                data = f.read()
            out.append(data)
            try:
                value = plistlib.loads(data)
                out += [plistlib.dumps(value, fmt=plistlib.FMT_BINARY), plistlib.dumps(value)]
            except Exception:
                pass
        return out
    if kind == "ipa":
        with open(os.path.join(EXAMPLES, "ATS", "exceptions.plist"), "rb") as f:
            info = plistlib.load(f)
        out = []
        for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED):
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", method) as z:
                z.writestr("Payload/Example.app/Info.plist", plistlib.dumps(info, fmt=plistlib.FMT_BINARY))
                z.writestr("Payload/Example.app/PlugIns/Ext.appex/Info.plist", plistlib.dumps(info))
                z.writestr("Payload/Example.app/Example", b"\x7fELF" + bytes(200))
            out.append(buffer.getvalue())
        return out
    if kind == "pins":
        out = []
        for fmt in ["ats", "trustkit", "trustkit-json", "okhttp", "android"]:
            done = subprocess.run([ats, "pins", CHAIN, ANCHOR, "--format", fmt, "--host", "www.example.test"], capture_output=True)
            if done.returncode != 0:
                sys.exit(f"fuzz-inputs: `ats pins --format {fmt}` exited {done.returncode}: {done.stderr.decode()[-500:]}")
            out.append(done.stdout)
        return out
    with open(CHAIN, "rb") as f:
        return [f.read()]


def pem_blocks(data):
    """The DER of each certificate block, decoded strictly; a block that does not decode stands for itself."""
    out = []
    for m in re.finditer(rb"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", data, re.S):
        body = re.sub(rb"[ \t\r\n]+", b"", m.group(1))
        try:
            out.append(base64.b64decode(body, validate=True))
        except ValueError:
            out.append(b"undecodable:" + body)
    return out


def command(ats, kind, path):
    if kind in ("plist", "ipa"):
        return [ats, "audit", path, "--format", "json"]
    if kind == "pins":
        return [ats, "pins", CHAIN, "--anchors", ANCHOR, "--host", "www.example.test", "--pin-file", path]
    return [ats, "verify", path, "--anchors", ANCHOR, "--host", "www.example.test"]


def main():
    parser = argparse.ArgumentParser(usage=__doc__.splitlines()[-2].strip())
    parser.add_argument("ats")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1000, help="runs per kind")
    parser.add_argument("--kinds", default="plist,ipa,pins,pem")
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    if args.runs < 1 or any(k not in ("plist", "ipa", "pins", "pem") for k in kinds):
        parser.error("--runs must be at least 1 and --kinds a comma-separated list of plist, ipa, pins and pem")
    work = args.work or tempfile.mkdtemp(prefix="fuzz-inputs-")
    os.makedirs(work, exist_ok=True)

    failures = 0
    for kind in kinds:
        rng = random.Random(f"{args.seed}-{kind}")
        pool = seeds(args.ats, kind)
        path = os.path.join(work, f"input.{kind}")
        statuses = {}
        for n in range(args.runs):
            data = mutate(rng, rng.choice(pool))
            with open(path, "wb") as f:
                f.write(data)
            try:
                done = subprocess.run(command(args.ats, kind, path), capture_output=True, timeout=args.timeout)
                status = done.returncode
            except subprocess.TimeoutExpired:
                status = "hang"
            statuses[status] = statuses.get(status, 0) + 1
            # A chain whose certificates changed must never be trusted.
            if kind == "pem" and status == 0 and not set(pem_blocks(data)) <= set(pem_blocks(pool[0])):
                status = "trusted a changed chain"
            if status not in (0, 1, 2):
                failures += 1
                kept = os.path.join(work, f"{kind}-{n}-{status}")
                with open(kept, "wb") as f:
                    f.write(data)
                detail = "" if isinstance(status, str) else done.stderr.decode(errors="replace").strip().splitlines()[:1]
                print(f"  {kind} run {n}: {status if isinstance(status, str) else f'exit {status}'} {detail} (input kept as {kept})")
        print(f"fuzz-inputs: {kind}, seed {args.seed}, {args.runs} runs: " +
              ", ".join(f"{k if isinstance(k, str) else f'exit {k}'} × {v}" for k, v in sorted(statuses.items(), key=str)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
