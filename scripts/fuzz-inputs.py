#!/usr/bin/env python3
"""Mutation run over the inputs people hand to `ats`: Info.plists (XML and binary) and .ipa archives through `ats audit`, pin
configurations (every format `ats pins --format` writes, the plists also in binary, the text ones also with CRLF line
ends) through `ats pins --pin-file`, PEM chains and OCSP
responses through `ats verify`, and client identities (PKCS#12, PEM private keys) through `ats fetch`, which
loads them before it connects to a closed port on 127.0.0.1. Every run must end with exit status 0, 1 or 2
within the time limit: a crash or a hang fails. A changed PEM chain must not be trusted unless its
certificates decode to the original ones, and a changed OCSP response must not pass hard-fail revocation
unless its signed part is intact.

The seeds are the files in Examples/, what `ats pins` generates from them, and a small PKI made with the
openssl command (a CA, a leaf naming an OCSP responder, a good response for it, the leaf's key and a PKCS#12
of both). Mutations: random bytes, special bytes and markup, truncation, deleted and repeated runs. Each
failing input is kept in the work folder.

    scripts/fuzz-inputs.py ATS [--seed N] [--runs N] [--kinds plist,ipa,pins,pem,ocsp,p12,key] [--work DIR]
Exit status: 0 clean, 1 a crash or a hang, 2 usage.
"""
import argparse, base64, concurrent.futures, datetime, glob, io, os, plistlib, random, re, subprocess, sys, tempfile, time, zipfile

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


KINDS = ("plist", "ipa", "pins", "pem", "ocsp", "p12", "key")
HOST = "www.example.test"
CLOSED = "https://127.0.0.1:9/"  # nothing listens: identities are loaded, then the connection is refused


def make_pki(work):
    """A CA, a leaf for HOST naming an OCSP responder, a good OCSP response for it, its key and a PKCS#12 of both."""
    pki = os.path.join(work, "pki")
    os.makedirs(pki, exist_ok=True)
    at = lambda name: os.path.join(pki, name)

    def run(*argv):
        done = subprocess.run(["openssl", *argv], capture_output=True, cwd=pki)
        if done.returncode != 0:
            sys.exit(f"fuzz-inputs: `openssl {' '.join(argv)}` exited {done.returncode}: {done.stderr.decode()[-500:]}")

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Fuzz CA", "-days", "30",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", *ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", f"/CN={HOST}")
    with open(at("leaf.ext"), "w") as f:
        f.write(f"subjectAltName=DNS:{HOST}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n"
                "basicConstraints=critical,CA:FALSE\nauthorityInfoAccess=OCSP;URI:http://127.0.0.1:9/\n")
    run("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "4660", "-days", "10",
        "-extfile", "leaf.ext", "-out", "leaf.pem")
    with open(at("index.txt"), "w") as f:
        f.write(f"V\t{(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=20)):%y%m%d%H%M%SZ}\t\t1234\tunknown\t/CN={HOST}\n")
    run("ocsp", "-issuer", "ca.pem", "-cert", "leaf.pem", "-no_nonce", "-reqout", "req.der")
    run("ocsp", "-index", "index.txt", "-rsigner", "ca.pem", "-rkey", "ca.key", "-CA", "ca.pem", "-reqin", "req.der",
        "-respout", "response.der", "-ndays", "1")
    run("pkcs12", "-export", "-inkey", "leaf.key", "-in", "leaf.pem", "-out", "identity.p12", "-passout", "pass:fuzz")
    with open(at("password"), "w") as f:
        f.write("fuzz")
    return at


def der_children(data):
    """The encodings of the elements inside one DER SEQUENCE or explicit tag (enough to find tbsResponseData)."""
    def header(i):
        length, i = data[i + 1], i + 2
        if length & 0x80:
            n = length & 0x7F
            length, i = int.from_bytes(data[i:i + n], "big"), i + n
        return i, length
    start, length = header(0)
    out, i = [], start
    while i < start + length:
        body, n = header(i)
        out.append(data[i:body + n])
        i = body + n
    return out


def signed_response_part(response):
    """tbsResponseData of an OCSPResponse: the part its signature covers."""
    bytes_field = der_children(response)[1]                 # [0] EXPLICIT ResponseBytes
    octets = der_children(der_children(bytes_field)[0])[1]   # SEQUENCE { responseType, response OCTET STRING }
    basic = octets[2 + (octets[1] & 0x7F if octets[1] & 0x80 else 0):]
    return der_children(basic)[0]


def seeds(ats, kind, pki):
    if kind in ("ocsp", "p12", "key"):
        with open(pki({"ocsp": "response.der", "p12": "identity.p12", "key": "leaf.key"}[kind]), "rb") as f:
            return [f.read()]
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
            if fmt in ("ats", "trustkit"):
                # The same plist in binary form, and every text format with Windows line ends: both are read too.
                value = plistlib.loads(done.stdout)
                out.append(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
            else:
                out.append(done.stdout.replace(b"\n", b"\r\n"))
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


def command(ats, kind, path, pki):
    if kind == "ocsp":
        return [ats, "verify", pki("leaf.pem"), "--anchors", pki("ca.pem"), "--host", HOST, "--ocsp-response", path, "--revocation", "hard"]
    if kind == "p12":
        return [ats, "fetch", CLOSED, "--identity", path, "--password-file", pki("password"), "--anchors", pki("ca.pem"), "--timeout", "10"]
    if kind == "key":
        return [ats, "fetch", CLOSED, "--cert", pki("leaf.pem"), "--key", path, "--anchors", pki("ca.pem"), "--timeout", "10"]
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
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    if args.runs < 1 or any(k not in KINDS for k in kinds):
        parser.error(f"--runs must be at least 1 and --kinds a comma-separated list of {', '.join(KINDS)}")
    work = args.work or tempfile.mkdtemp(prefix="fuzz-inputs-")
    os.makedirs(work, exist_ok=True)
    pki = make_pki(work)

    failures = 0
    # Each run is a process of its own that mostly uses one core, so one runs per core (at most four): on CI's two cores
    # that halves its longest step. The inputs are drawn in order before any runs, so a seed gives the same inputs
    # whatever order the runs end in.
    workers = max(1, min(4, os.cpu_count() or 1))
    for kind in kinds:
        rng = random.Random(f"{args.seed}-{kind}")
        pool = seeds(args.ats, kind, pki)
        inputs = [mutate(rng, rng.choice(pool)) for _ in range(args.runs)]

        def run(n):
            # A file per run: a slow run may still be reading its input when later runs start.
            path = os.path.join(work, f"input-{n}.{kind}")
            with open(path, "wb") as f:
                f.write(inputs[n])
            try:
                done = subprocess.run(command(args.ats, kind, path, pki), capture_output=True, timeout=args.timeout)
                return done.returncode, done.stderr
            except subprocess.TimeoutExpired:
                return "hang", b""
            finally:
                os.remove(path)

        statuses = {}
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(workers) as executor:
            outcomes = list(executor.map(run, range(args.runs)))
        for n, (status, stderr) in enumerate(outcomes):
            data = inputs[n]
            statuses[status] = statuses.get(status, 0) + 1
            # A chain whose certificates changed must never be trusted.
            if kind == "pem" and status == 0 and not set(pem_blocks(data)) <= set(pem_blocks(pool[0])):
                status = "trusted a changed chain"
            # A response whose signed part changed must never count as good.
            if kind == "ocsp" and status == 0 and signed_response_part(pool[0]) not in data:
                status = "believed a changed response"
            if status not in (0, 1, 2):
                failures += 1
                kept = os.path.join(work, f"{kind}-{n}-{status}")
                with open(kept, "wb") as f:
                    f.write(data)
                detail = "" if isinstance(status, str) else stderr.decode(errors="replace").strip().splitlines()[:1]
                print(f"  {kind} run {n}: {status if isinstance(status, str) else f'exit {status}'} {detail} (input kept as {kept})")
        print(f"fuzz-inputs: {kind}, seed {args.seed}, {args.runs} runs: " +
              ", ".join(f"{k if isinstance(k, str) else f'exit {k}'} × {v}" for k, v in sorted(statuses.items(), key=str)) +
              f" ({time.monotonic() - started:.0f} s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
