#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus/ from files already in the repository (Examples/, the tests' AppleChains
fixtures, Fuzz/Fixtures/) and a few hand-made protocol messages. Run again after changing a fixture; libFuzzer adds
what it finds to its own working corpus, never here. Needs only Python 3.

    Fuzz/make-seeds.py
"""
import base64, glob, json, os, plistlib, re, shutil, struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
CHAINS = sorted(glob.glob(os.path.join(ROOT, "Tests/TransportTrustTests/Fixtures/AppleChains/*.pem")))
PKI = os.path.join(ROOT, "Fuzz", "Fixtures", "ocsp")
PKI_SEEDS = os.path.join(ROOT, "Fuzz", "Fixtures", "seeds")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def pem_blocks(data):
    return [base64.b64decode(b"".join(m.split())) for m in
            re.findall(rb"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", data, re.S)]


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def der_element(data, i):
    """(header end, content end) of the DER element at i."""
    length, j = data[i + 1], i + 2
    if length & 0x80:
        n = length & 0x7F
        length, j = int.from_bytes(data[j:j + n], "big"), j + n
    return j, j + length


def sct_list(cert):
    """The inner OCTET STRING of the SCT list extension (1.3.6.1.4.1.11129.2.4.2): the TLS-encoded list."""
    oid = bytes.fromhex("060a2b06010401d679020402")
    i = cert.find(oid)
    if i < 0:
        return None
    j = i + len(oid)
    if cert[j] == 0x01:  # critical BOOLEAN
        j = der_element(cert, j)[1]
    outer_start, _ = der_element(cert, j)
    inner_start, inner_end = der_element(cert, outer_start)
    return cert[inner_start:inner_end]


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    pems = [os.path.join(ROOT, "Examples/chain.pem")] + CHAINS + [os.path.join(PKI, "leaf.pem")]
    # chain: PEM as given, DER leaf alone, DER certificates back to back.
    for path in pems:
        name = os.path.splitext(os.path.basename(path))[0]
        ders = pem_blocks(read(path))
        write("chain", name + ".pem", read(path))
        write("chain", name + ".der", b"".join(ders))
        write("chain", name + "-leaf.der", ders[0])
        for k, der in enumerate(ders):
            write("certificate", f"{name}-{k}.der", der)
    for k, der in enumerate(pem_blocks(read(os.path.join(ROOT, "Examples/root.pem"))) + pem_blocks(read(os.path.join(PKI, "ca.pem")))):
        write("certificate", f"root-{k}.der", der)
    for path in CHAINS:
        sct = sct_list(pem_blocks(read(path))[0])
        if sct:
            write("sct-list", os.path.splitext(os.path.basename(path))[0] + ".sct", sct)

    # CT log lists: a few logs of the bundled list, one of each shape the reader handles (a time window, a tiled log, an
    # RSA key, a log no longer trusted), small enough that libFuzzer mutates the structure rather than the bulk.
    bundled = json.loads(read(os.path.join(ROOT, "Sources/TransportTrust/Resources/CTLogList/apple_log_list.json")))
    every = [(op, kind, log) for op in bundled["operators"] for kind in ("logs", "tiled_logs") for log in op.get(kind, [])]
    picks = [next(e for e in every if e[1] == "logs" and "temporal_interval" in e[2] and "usable" in e[2]["state"]),
             next(e for e in every if e[1] == "tiled_logs"),
             next(e for e in every if len(base64.b64decode(e[2]["key"])) > 200),
             next(e for e in every if "rejected" in e[2]["state"] or "retired" in e[2]["state"])]
    def log_list(entries):
        operators = {}
        for op, kind, log in entries:
            operators.setdefault(op["name"], {"name": op["name"]}).setdefault(kind, []).append(log)
        return json.dumps({"version": bundled["version"], "operators": list(operators.values())}, indent=1).encode()
    write("ct-log-list", "four-logs.json", log_list(picks))
    write("ct-log-list", "one-log.json", log_list(picks[:1]))

    # Property lists: every example Info.plist, XML and binary.
    for path in sorted(glob.glob(os.path.join(ROOT, "Examples/ATS/*.plist"))):
        name, data = os.path.basename(path), read(path)
        write("ats-config", name, data)
        value = plistlib.loads(data)
        binary = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
        write("ats-config", name + ".bplist", binary)
        write("binary-plist", name + ".bplist", binary)

    # Pin files: the same two pins in every format.
    a, b = "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="
    write("pins-ats", "pinned.plist", read(os.path.join(ROOT, "Examples/ATS/pinned.plist")))
    write("pins-ats", "pinned.bplist", plistlib.dumps(plistlib.loads(read(os.path.join(ROOT, "Examples/ATS/pinned.plist"))), fmt=plistlib.FMT_BINARY))
    trustkit = {"TSKSwizzleNetworkDelegates": False, "TSKPinnedDomains": {
        "example.com": {"TSKIncludeSubdomains": True, "TSKEnforcePinning": True, "TSKPublicKeyHashes": [a, b],
                        "TSKExpirationDate": "2031-02-03", "TSKReportUris": ["https://report.example.com/pins"]},
        "api.example.com": {"TSKExcludeSubdomainFromParentPolicy": True}}}
    write("pins-trustkit", "trustkit.plist", plistlib.dumps({"TSKConfiguration": trustkit}))
    write("pins-trustkit", "trustkit-dict.plist", plistlib.dumps(trustkit))
    write("pins-trustkit", "trustkit.bplist", plistlib.dumps(trustkit, fmt=plistlib.FMT_BINARY))
    write("pins-trustkit-json", "trustkit.json", json.dumps(trustkit, indent=1).encode())
    write("pins-trustkit-json", "trustkit-short.json", json.dumps({"TSKPinnedDomains": {"example.com": {"TSKPublicKeyHashes": [a, b]}}}).encode())
    write("pins-okhttp", "pins.txt", f"# OkHttp CertificatePinner\nexample.com sha256/{a}\nexample.com sha256/{b}\n*.api.example.com sha256/{a}\n**.example.org sha256/{b}\n".encode())
    write("pins-okhttp", "pins-crlf.txt", f"example.com sha256/{a}\r\nexample.com sha1/AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n".encode())
    write("pins-android", "nsc.xml", f"""<?xml version="1.0" encoding="utf-8"?>
<network-security-config>
  <base-config cleartextTrafficPermitted="false"/>
  <domain-config>
    <domain includeSubdomains="true">example.com</domain>
    <pin-set expiration="2031-02-03"><pin digest="SHA-256">{a}</pin><pin digest="SHA-256">{b}</pin></pin-set>
    <domain-config><domain>api.example.com</domain><pin-set></pin-set></domain-config>
    <trust-anchors><certificates src="system"/></trust-anchors>
  </domain-config>
  <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>
</network-security-config>
""".encode())

    # OCSP and client identities: made with the fixture PKI (Fuzz/Fixtures/README.md).
    for name in ("good.der", "revoked.der"):
        write("ocsp", name, read(os.path.join(PKI_SEEDS, name)))
    write("identity-pkcs12", "identity.p12", read(os.path.join(PKI_SEEDS, "identity.p12")))
    for name in ("leaf.key", "leaf-enc.key", "leaf-sec1.key"):
        write("identity-pem-key", name, read(os.path.join(PKI_SEEDS, name)) if name != "leaf.key" else read(os.path.join(PKI, name)))
    write("identity-pem-chain", "leaf.pem", read(os.path.join(PKI, "leaf.pem")))
    write("identity-pem-chain", "leaf-and-ca.pem", read(os.path.join(PKI, "leaf.pem")) + read(os.path.join(PKI, "ca.pem")))

    # CRLs: made with the CRL fixture CA (Fuzz/Fixtures/README.md), as DER and as PEM.
    for path in sorted(glob.glob(os.path.join(ROOT, "Fuzz/Fixtures/crl/*.crl"))):
        name, der = os.path.splitext(os.path.basename(path))[0], read(path)
        write("crl", name + ".der", der)
        body = base64.encodebytes(der).replace(b"\n", b"")
        lines = b"\n".join(body[i:i + 64] for i in range(0, len(body), 64))
        write("crl", name + ".pem", b"-----BEGIN X509 CRL-----\n" + lines + b"\n-----END X509 CRL-----\n")

    # ServerHellos: the first byte is the chunk size the target feeds them in.
    def hello(suite, version=None, legacy=0x0303):
        body = struct.pack(">H", legacy) + bytes(range(32)) + b"\x20" + bytes([1] * 32) + struct.pack(">HB", suite, 0)
        ext = b"\xff\x01\x00\x01\x00" + (struct.pack(">HHH", 43, 2, version) if version else b"")
        body += struct.pack(">H", len(ext)) + ext
        hs = b"\x02" + len(body).to_bytes(3, "big") + body
        return b"\x16\x03\x03" + struct.pack(">H", len(hs)) + hs
    write("server-hello", "tls12", b"\x0f" + hello(0xC02F) + b"\x16\x03\x03\x00\x04\x0b\x00\x00\x00")
    write("server-hello", "tls13", b"\x02" + hello(0x1301, 0x0304))
    write("server-hello", "tls10", b"\x00" + hello(0x002F, legacy=0x0301))
    write("server-hello", "alert", b"\x03\x15\x03\x03\x00\x02\x02\x46")
    write("server-hello", "http", b"\x0fHTTP/1.1 400 Bad Request\r\n\r\n")

    # HTTP responses: the first byte picks the chunk size (n % 16 * 64 + 1).
    responses = {
        "length": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
        "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nTrailer: z\r\n\r\n",
        "close": b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
        "continue": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nServer: x\r\n\r\n",
        "redirect": b"HTTP/1.1 302 Found\r\nLocation: https://www.example.test/b\r\nContent-Length: 0\r\n\r\n",
        "challenge": b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Digest realm=\"a\", nonce=\"n\", qop=\"auth\"\r\nContent-Length: 0\r\n\r\n",
        "toolarge": b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000,
        "http10": b"HTTP/1.0 200 OK\r\n\r\nbody",
    }
    for name, data in responses.items():
        write("http-response", name, b"\x00" + data)
        write("http-response", name + "-bytewise", b"\x10" + data)

    write("auth-challenge", "digest", b'Digest realm="api@example.test", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"\n')
    write("auth-challenge", "several", b'Basic realm="simple", Newauth realm="apps", type=1, title="Login to \\"apps\\"", Digest realm="x", nonce="y", algorithm=MD5-sess\nBearer error="invalid_token"\n')
    write("auth-challenge", "token68", b"Negotiate abc123==, Digest nonce=n, realm=r, opaque=o, stale=TRUE\n")

    # ipa: small archives as Xcode writes them (deflated) and stored, an app with an extension, and one with two apps.
    import io, zipfile
    app = read(os.path.join(ROOT, "Fuzz/Corpus/ats-config/exceptions.plist"))
    ext = plistlib.dumps({"CFBundleIdentifier": "com.example.app.widget", "NSAppTransportSecurity": {"NSAllowsLocalNetworking": True}})
    def archive(members, method=zipfile.ZIP_DEFLATED):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", method) as z:
            for name, data in members:
                info = zipfile.ZipInfo(name, date_time=(2026, 11, 28, 0, 0, 0))
                info.compress_type = method
                z.writestr(info, data)
        return buffer.getvalue()
    write("ipa", "app.ipa", archive([("Payload/Demo.app/Info.plist", app)]))
    write("ipa", "stored.ipa", archive([("Payload/Demo.app/Info.plist", app)], zipfile.ZIP_STORED))
    write("ipa", "extension.ipa", archive([("Payload/Demo.app/Info.plist", app), ("Payload/Demo.app/PlugIns/Widget.appex/Info.plist", ext),
                                           ("Payload/Demo.app/Assets.car", b"\x07" * 64)]))
    write("ipa", "two-apps.ipa", archive([("Payload/A.app/Info.plist", app), ("Payload/B.app/Info.plist", app)]))

    # url: what fetch, check, redirects and --proxy read, and NO_PROXY lists.
    for name, text in {
        "https": "https://www.example.test:8443/path?q=1#f", "ipv6": "http://[::1]:8080/", "idn": "https://xn--mnchen-3ya.de./",
        "ipv4-legacy": "http://0x7f.1/", "userinfo": "http://user:pass@proxy.internal:3128", "bare-proxy": "proxy.internal:3128",
        "big-port": "http://127.0.0.1:99999999999999999999/", "no-proxy": "localhost,.corp.example,10.0.0.0/8,[::1]:443,*",
    }.items():
        write("url", name, text.encode())


if __name__ == "__main__":
    main()
