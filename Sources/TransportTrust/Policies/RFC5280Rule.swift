import NIOConcurrencyHelpers
import SwiftASN1
@_spi(DisableValidityCheck) import X509

/// RFC 5280 path checks that swift-certificates implements: version, basic constraints, path length and name
/// constraints. Validity is left to `ValidityRule` so that it gets its own codes.
///
/// swift-certificates reports only a sentence; this rule maps it to a stable code and a certificate index.
package struct RFC5280Rule: ChainRule {
    /// One for all: the rule is made afresh for every evaluation, and the policy allocates on creation.
    private static let sharedPolicy = RFC5280Policy.withValidityCheckDisabled()
    private var policy: RFC5280Policy { Self.sharedPolicy }

    /// Paths whose name-constraint work exceeds this are left to `StructureRule`, which refuses them.
    package var nameConstraintBudget: Int
    /// Whether the anchor is trust-anchor information only (RFC 5280 §6.1.1 (d): a name and a key), as SecTrust takes
    /// it, so a version 1 root or one not marked as a CA still anchors. The Web PKI profile requires a CA.
    package var anchorNeedNotBeCA: Bool

    package init(nameConstraintBudget: Int = 1 << 16, anchorNeedNotBeCA: Bool = true) {
        self.nameConstraintBudget = nameConstraintBudget
        self.anchorNeedNotBeCA = anchorNeedNotBeCA
    }

    /// subjectAltName too: the name-constraint check reads it, and RFC 5280 §4.2.1.6 makes it critical whenever the
    /// subject is empty, so a policy without a host (basic X.509, or SSL with host validation off) must accept it.
    package var handledCriticalExtensions: [ASN1ObjectIdentifier] { Self.handled }

    private static let handled = sharedPolicy.verifyingCriticalExtensions + [.X509ExtensionID.subjectAlternativeName]

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // A lone certificate is its own trust anchor (a self-signed server certificate the caller chose to trust):
        // there is no path to validate, and swift-certificates would refuse it for not being a CA.
        guard chain.count > 1 else { return }
        var chain = chain
        var asPresented = true
        // The anchor is copied out only when it needs a stand-in: a copy is a retain per field.
        if anchorNeedNotBeCA, !context.extensions(chain, chain.count - 1).isCA,
           let standIn = Self.standIn(forAnchor: chain[chain.count - 1], context: context),
           let replaced = UnverifiedCertificateChain.assembled(chain.dropLast() + [standIn]) {
            chain = replaced
            asPresented = false
        }
        let load = NameConstraintLoad(chain, extensions: context.extensions)
        guard load.work <= nameConstraintBudget else { return }
        if asPresented, let passedAbove = context.passedAbove, passedAbove.covers(chain) { return }
        guard let (text, judged) = refusal(chain, load: load, context: context, asPresented: asPresented, into: &failures) else { return }
        failures.append(failure(text, chain: judged, context: context))
    }

    /// Certificates above a leaf on which swift-certificates' policy passed, each path's kept when no certificate
    /// above its leaf carries nameConstraints (`IntermediateCache` holds one per engine). For such a path the policy
    /// (validity off) reads the leaf in one place only, its version check (a version 1 certificate with extensions
    /// fails); basic constraints and path lengths read the certificates above it alone, and no name constraint applies
    /// to it. So a new leaf under the same certificates, byte for byte, meets the policy exactly when it passes that
    /// version check, and a warm evaluation need not run the policy (3.5% of one, basicConstraints parsed again).
    final class PassedAbove: Sendable {
        /// The signed bytes of each remembered path's certificates above the leaf, oldest first.
        private let paths = NIOLockedValueBox<[[ArraySlice<UInt8>]]>([])
        private let capacity: Int

        init(capacity: Int) { self.capacity = max(1, capacity) }

        /// Whether the policy would pass `chain`: its certificates above the leaf are a remembered path's, and the leaf
        /// passes the policy's version check.
        func covers(_ chain: UnverifiedCertificateChain) -> Bool {
            // By index: a certificate copied out of the chain is a retain per field.
            guard chain.count > 1, chain[0].version != .v1 || chain[0].extensions.isEmpty else { return false }
            return paths.withLockedValue { paths in
                paths.contains { path in path.count == chain.count - 1 && path.indices.allSatisfy { path[$0] == chain[$0 + 1].tbsCertificateBytes } }
            }
        }

        /// Remembers `chain`'s certificates above the leaf, which swift-certificates' policy has just passed with it,
        /// when none of them carries nameConstraints.
        func note(_ chain: UnverifiedCertificateChain) {
            guard chain.count > 1,
                  (1..<chain.count).allSatisfy({ chain[$0].extensions[oid: .X509ExtensionID.nameConstraints] == nil }) else { return }
            let path = (1..<chain.count).map { chain[$0].tbsCertificateBytes }
            paths.withLockedValue { paths in
                guard !paths.contains(path) else { return }
                if paths.count >= capacity { paths.removeFirst() }
                paths.append(path)
            }
        }
    }

    /// The anchor as swift-certificates' policy must see it to take it as trust-anchor information: when it is not
    /// marked as a CA (version 1, or basicConstraints absent or cA false), the same name, key, dates and other
    /// extensions, with basicConstraints cA and no path length. nil when the anchor is a CA already (the usual case).
    /// The policy checks no signature, so the stand-in's own is never read.
    static func standIn(forAnchor anchor: Certificate, context: RuleContext) -> Certificate? {
        if case .isCertificateAuthority? = context.extensions(anchor).basicConstraints.value { return nil }
        guard let key = OCSPStandIn.key else { return nil }
        var extensions = Certificate.Extensions()
        for ext in anchor.extensions where ext.oid != .X509ExtensionID.basicConstraints && ext.oid != .X509ExtensionID.keyUsage {
            try? extensions.append(ext)
        }
        guard (try? extensions.append(Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))) != nil
        else { return nil }
        return try? Certificate(version: .v3, serialNumber: anchor.serialNumber, publicKey: anchor.publicKey,
                                notValidBefore: anchor.notValidBefore, notValidAfter: anchor.notValidAfter, issuer: anchor.issuer,
                                subject: anchor.subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: key)
    }

    /// swift-certificates' reason for refusing `chain`, with the chain it describes; nil when the chain meets the policy
    /// or the refusal was settled here (a name-constraint subtree it cannot check, checked by `NameConstraintGaps`).
    private func refusal(_ chain: UnverifiedCertificateChain, load: NameConstraintLoad, context: RuleContext, asPresented: Bool,
                         into failures: inout [TrustFailure]) -> (String, UnverifiedCertificateChain)? {
        var chain = chain
        // directoryName, rfc822Name and URI subtrees are ours to check (NameConstraintGaps): swift-certificates refuses
        // or misreads them, so it checks the rest on a copy without them. A refusal of a subtree type it cannot match,
        // or of the names of a self-issued intermediate (RFC 5280 §6.1.3 exempts them), is settled the same way. Name
        // constraints are its policy's last check, so everything before them passed.
        let leftToUs = load.constraints > 0 && NameConstraintGaps.hasSubtreesCheckedHere(chain, extensions: context.extensions)
        var text = ""
        if !leftToUs {
            guard case .failsToMeetPolicy(let reason) = policy.chainMeetsPolicyRequirements(chain: chain) else {
                // Only a chain as presented: a stand-in anchor is made afresh each time.
                if asPresented { context.passedAbove?.note(chain) }
                return nil
            }
            text = reason.description
        }
        let refusedUnchecked = text.mentions("directoryName name constraints are not supported") || text.mentions("unsupported constraint")
        let exemptNames = (text.mentions("subtree") || text.mentions("name constraints")) && chain.indices.contains { NameConstraintGaps.isExempt(chain, $0) }
        if leftToUs || refusedUnchecked || exemptNames {
            if let stripped = NameConstraintGaps.withoutSubtreesLeftToUs(chain) {
                switch policy.chainMeetsPolicyRequirements(chain: stripped) {
                case .meetsPolicy:
                    if let violation = NameConstraintGaps.violation(in: chain) { failures.append(violation) }
                    return nil
                case .failsToMeetPolicy(let reason):
                    text = reason.description
                    chain = stripped  // the reason describes the rebuilt certificates; subjects and serials are unchanged
                }
            } else if leftToUs {
                failures.append(TrustFailure(.nameConstraints, certificate: nil, "the name constraints in this chain could not be prepared for checking; refused"))
                return nil
            }
        }
        return (text, chain)
    }

    /// swift-certificates' reason as a failure with a stable code, the certificate it concerns, and a sentence.
    private func failure(_ text: String, chain: UnverifiedCertificateChain, context: RuleContext) -> TrustFailure {
        let dumps = Self.dumps(in: text, chain: chain)
        let index = Self.concerned(text, chain: chain, dumps: dumps)
        // An extension swift-certificates could not read stopped its name-constraint check: the certificate is
        // malformed, and no name was found outside a constraint. StructureRule reports the same failure.
        if let index, let name = Self.unreadableExtension(in: text) {
            return .malformedExtension(name, of: chain[index], at: index)
        }
        let who = index.map { chain[$0].label } ?? "a certificate in the chain"
        let code: TrustFailureCode
        let message: String
        // Whether the message says all the reason does, so that swift-certificates' text would only repeat it.
        var complete = false
        if text.mentions("maximum path length") {
            code = .pathLength
            if let index, case .isCertificateAuthority(let limit?)? = context.extensions(chain[index]).basicConstraints.value {
                // RFC 5280 §4.2.1.9: self-issued intermediates do not count.
                let below = (1..<index).count { !chain[$0].isSelfIssued }
                message = "\(who) allows at most \(limit) CA certificate\(limit == 1 ? "" : "s") below it (pathLenConstraint \(limit)), and this chain has \(below)"
                complete = true
            } else {
                message = "\(who) limits how many CAs may follow it (pathLenConstraint), and this chain has more"
            }
        } else if text.mentions("is not marked as a CA") {
            code = .basicConstraints
            message = "\(who) issues certificates but is not marked as a CA (basicConstraints cA is false or absent)"
            complete = index != nil
        } else if text.mentions("basic constraints") {
            code = .basicConstraints
            message = "\(who) has an invalid basicConstraints extension"
        } else if text.mentions("name constraints") || text.mentions("subtree") || text.mentions("SAN field") {
            code = .nameConstraints
            // No name is outside: swift-certificates cannot match this kind, and a certificate below carries one
            // (NameConstraintGaps removed the subtrees of kinds no certificate below carries).
            if let index, text.mentions("unsupported constraint"), let kind = Self.unmatchedKind(in: text) {
                return TrustFailure(code, certificate: index,
                    "\(who) constrains \(kind) names, which this verifier cannot match, and a certificate below it carries one; the chain is refused rather than trusted unchecked")
            }
            // swift-certificates names no name for a permitted list, and shows addresses as byte arrays.
            if let index, text.mentions("no matches") || text.mentions("is excluded by"),
               let named = NameConstraintExplanation.offendingName(in: chain, carrier: index, extensions: context.extensions)
            {
                return TrustFailure(code, certificate: index, named)
            }
            message = "a name in the chain is outside the name constraints of \(who)"
        } else if text.mentions("version") {
            code = .malformedCertificate
            message = "\(who) is a version 1 certificate that carries extensions"
        } else {
            code = .policy
            message = "RFC 5280 path validation failed"
        }
        return TrustFailure(code, certificate: index, complete ? message : message + " (\(Self.shorten(text, chain: chain, dumps: dumps)))")
    }

    /// The extension a reason says could not be decoded, by the name ``ParsedExtensions`` gives it.
    static func unreadableExtension(in text: String) -> String? {
        if text.mentions("Unable to decode SAN field") { return "subjectAltName" }
        if text.mentions("Unable to decode name constraints") { return "nameConstraints" }
        return nil
    }

    /// The name kind of a subtree swift-certificates has no matcher for, as its reason writes the subtree.
    static func unmatchedKind(in text: String) -> String? {
        let kinds = [("OtherName(", "otherName"), ("X400Address(", "x400Address"),
                     ("EDIPartyName(", "ediPartyName"), ("RegisteredID(", "registeredID"), ("URI(", "URI")]
        return kinds.first { text.mentions("for name " + $0.0) }?.1
    }

    /// The index of the certificate a reason is about. Reasons embed whole certificate descriptions, whose issuer
    /// field names the next certificate up, so the whole description is matched before the subject alone.
    /// Name-constraint reasons name the subtree, not the CA; the CA is the one that carries it.
    static func concerned(_ text: String, chain: UnverifiedCertificateChain, dumps: [String?]) -> Int? {
        if let i = chain.indices.first(where: { dumps[$0] != nil }) { return i }
        // A subtree reason names a name and a subtree, never a subject: formatting every subject would be wasted.
        let aboutSubtrees = text.mentions("in name constraints") || text.mentions("unsupported constraint")
            || text.mentions("directoryName name constraints") || text.mentions("permitted subtree for")
        let bySubject = { chain.indices.last { text.mentions(chain[$0].subject.text) } }
        if !aboutSubtrees, let i = bySubject() { return i }
        let carrier = chain.indices.dropFirst().last { i in
            guard let nc = try? chain[i].extensions.nameConstraints else { return false }
            let subtrees = nc.permittedSubtrees + nc.excludedSubtrees
            if text.mentions("directoryName") {
                return subtrees.contains { if case .directoryName = $0 { return true } else { return false } }
            }
            // One subtree's text first: the whole list's is costly, and most carriers are not the one.
            if let first = nc.permittedSubtrees.first, text.mentions("\(first)"), text.mentions("\(nc.permittedSubtrees)") { return true }
            return nc.excludedSubtrees.contains { text.mentions("\($0)") }
        }
        return carrier ?? (aboutSubtrees ? bySubject() : nil)
    }

    /// For each certificate, its description when the reason embeds it. A dump is costly (it prints every
    /// extension), and path building meets many failing candidates, so only certificates whose serial number
    /// the text mentions are dumped: the description contains `String(reflecting: serialNumber)`.
    static func dumps(in text: String, chain: UnverifiedCertificateChain) -> [String?] {
        guard text.mentions("Certificate(") else { return Array(repeating: nil, count: chain.count) }
        return chain.map { cert in
            guard text.mentions(serialText(cert.serialNumber)) else { return nil }
            let dump = cert.description
            return text.mentions(dump) ? dump : nil
        }
    }

    /// `String(reflecting: serialNumber)` as swift-certificates writes it (unpadded hex octets joined by colons),
    /// without its lazy map and join, which cost more than the rest of this rule's classification.
    static func serialText(_ serial: Certificate.SerialNumber) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(serial.bytes.count * 3)
        for byte in serial.bytes {
            if !out.isEmpty { out.append(UInt8(ascii: ":")) }
            if byte >= 0x10 { out.append(digits[Int(byte >> 4)]) }
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// swift-certificates embeds whole certificate dumps in its reasons; keep the sentence only.
    static func shorten(_ text: String, chain: UnverifiedCertificateChain, dumps: [String?]) -> String {
        let prefix = "RFC5280Policy: "
        var t = text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
        for (cert, dump) in zip(chain, dumps) { if let dump { t = t.replacingEvery(dump, with: cert.label) } }
        // Characters are counted only when the bytes say the text may be long.
        if t.utf8.count > 240 && t.count > 240 { t = String(t.prefix(240)) + "…" }
        return t
    }
}
