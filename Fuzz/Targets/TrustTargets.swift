import Foundation
import SwiftASN1
import TransportTrust
import X509

extension FuzzTarget {
    static let host: PeerName = {
        guard let name = try? PeerName("www.example.test") else { violated("www.example.test is not a peer name") }
        return name
    }()

    /// A chain as PEM or DER (one certificate, or several back to back) into `TrustEngine.evaluate`, anchored at
    /// `Examples/root.pem`, under the SSL policy and the basic X.509 one (which the example chain passes: its leaf is
    /// valid for longer than Apple allows a server certificate). Each evaluated cold, again from the engine's cache, and
    /// again from the DER alone by a fresh engine, which must agree.
    static let chain = FuzzTarget(name: "chain", summary: "PEM/DER chain → TrustEngine.evaluate (fixed anchor, fixed time)") { bytes in
        guard let presented = try? CertificateLoader.certificates(from: bytes, source: "the fuzz input"), !presented.isEmpty else { return }
        for policy in [TrustPolicy.ssl(host: host), .basicX509] {
            let trust = ServerTrust(chain: presented, anchors: Fixtures.exampleAnchors, policy: policy, validationTime: fuzzTime)
            let fromDER = ServerTrust(certificates: presented.map(\.der), anchors: Fixtures.exampleAnchors, policy: policy,
                                      validationTime: fuzzTime)
            let engine = TrustEngine(cacheCapacity: 16)
            let (cold, cached, uncached) = runBlocking {
                (await engine.evaluate(trust), await engine.evaluate(trust), await TrustEngine(cacheCapacity: 0).evaluate(fromDER))
            }
            checkVerdict(cold, presented: presented.map(\.der), anchors: Fixtures.exampleAnchors)
            checkSame(cold, cached, "a repeat evaluation (from the cache)")
            checkSame(cold, uncached, "an evaluation of the same DER by a fresh engine")
        }
    }

    /// One DER certificate through `InputCertificate` and `RawCertificate`, and everything a verdict prints about it.
    static let certificate = FuzzTarget(name: "certificate", summary: "one DER certificate → InputCertificate, RawCertificate") { bytes in
        let raw = try? RawCertificate(der: bytes)
        if let raw {
            _ = (raw.spkiSHA256Base64, raw.keyAlgorithm.description, raw.keyAlgorithm.bits, raw.version, raw.basicConstraints,
                 raw.repeatedExtension, raw.subject.description, raw.issuer.description)
            if raw.der != bytes { violated("RawCertificate keeps other bytes than it was given") }
        }
        guard let input = try? InputCertificate(der: bytes) else { return }
        if input.der != bytes { violated("InputCertificate keeps other bytes than it was given") }
        _ = CertificateSummary(input)
        if let parsed = input.certificate {
            // DER has one encoding per value: what swift-certificates read must serialise back to the same bytes.
            var serializer = DER.Serializer()
            do { try serializer.serialize(parsed) } catch { violated("a parsed certificate does not serialise: \(error)") }
            if serializer.serializedBytes != bytes { violated("a parsed certificate serialises to other bytes") }
        }
    }

    /// An OCSP response for the fixture leaf, under hard-fail revocation through `RevocationCheck`. Only the response the
    /// fixture CA signed can make the chain trusted, so a trusted verdict must carry its signed part intact.
    static let ocsp = FuzzTarget(name: "ocsp", summary: "OCSP response → RevocationCheck (hard-fail) via TrustEngine") { bytes in
        var policy = TrustPolicy.ssl(host: host)
        policy.revocation = RevocationOptions(mode: .hard, responses: [bytes])
        let trust = ServerTrust(chain: Fixtures.ocspLeaf, anchors: Fixtures.ocspAnchors, policy: policy, validationTime: fuzzTime)
        let (first, second) = runBlocking {
            (await TrustEngine(cacheCapacity: 0).evaluate(trust), await TrustEngine(cacheCapacity: 0).evaluate(trust))
        }
        checkVerdict(first, presented: Fixtures.ocspLeaf.map(\.der), anchors: Fixtures.ocspAnchors)
        checkSame(first, second, "a second evaluation")
        if first.isTrusted, !contains(goodResponseData, in: bytes) {
            violated("hard-fail revocation passed on a response whose signed part is not the CA's")
        }
    }

    /// tbsResponseData of the genuine "good" response: OCSPResponse { status, [0] { type, OCTET STRING { BasicOCSPResponse { tbsResponseData … } } } }.
    static let goodResponseData: [UInt8] = {
        func children(_ node: ASN1Node) -> [ASN1Node] {
            guard case .constructed(let nodes) = node.content else { return [] }
            return Array(nodes)
        }
        let der = Fixtures.bytes("Fuzz/Fixtures/seeds/good.der")
        guard let root = try? DER.parse(der), children(root).count == 2,
              let bytesField = children(children(root)[1]).first, children(bytesField).count == 2,
              case .primitive(let basicDER) = children(bytesField)[1].content,
              let basic = try? DER.parse(basicDER), let data = children(basic).first
        else { violated("Fuzz/Fixtures/seeds/good.der is not an OCSP response") }
        return Array(data.encodedBytes)
    }()

    static func contains(_ part: [UInt8], in bytes: [UInt8]) -> Bool {
        guard part.count <= bytes.count else { return false }
        return (0...(bytes.count - part.count)).contains { bytes[$0..<($0 + part.count)].elementsEqual(part) }
    }

    /// What every verdict must satisfy: trusted means a chain from the presented leaf to one of the anchors, and refused
    /// means at least one reason.
    static func checkVerdict(_ verdict: TrustVerdict, presented: [[UInt8]], anchors: TrustAnchors) {
        guard verdict.isTrusted else {
            if verdict.failures.isEmpty { violated("a refused verdict gives no reason") }
            return
        }
        guard let first = verdict.chain.first, let last = verdict.chain.last else { violated("a trusted verdict has no chain") }
        if first.der != presented.first { violated("a trusted chain does not start at the presented leaf") }
        if !anchors.custom.contains(where: { $0.der == last.der }) { violated("a trusted chain does not end at an anchor") }
        if verdict.anchor != .custom { violated("a chain trusted through a custom anchor reports anchor \(String(describing: verdict.anchor))") }
    }

    static func checkSame(_ a: TrustVerdict, _ b: TrustVerdict, _ what: String) {
        if a.isTrusted != b.isTrusted { violated("\(what) changed the verdict: \(a.failures) then \(b.failures)") }
        if a.isTrusted, a.chain.map(\.der) != b.chain.map(\.der) { violated("\(what) built another chain") }
        if Set(a.failures.map(\.code)) != Set(b.failures.map(\.code)) {
            violated("\(what) gave other reasons: \(a.failures.map(\.code)) then \(b.failures.map(\.code))")
        }
    }
}
