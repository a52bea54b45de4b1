import BenchmarkSupport
import Crypto
import Foundation
import SwiftASN1
import TransportTrust
import X509

// A CRL of a million entries: how long it takes to read, how fast serials are looked up, and the peak memory of the
// process that does it (bench/crl.sh runs `openssl crl` on the same file in the same run).
//
//   CRLBenchmark generate FILE [--entries N]   writes a DER CRL of N entries (default 1,000,000), 16-byte serials
//                                              from a fixed seed, a reasonCode on every tenth, signed with P-256
//   CRLBenchmark read FILE [--lookups N]       reads it and looks up N serials, half listed and half not

/// SplitMix64: the same serials in `generate` and `read`.
struct Serials {
    var state: UInt64
    mutating func next() -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.bigEndian) { bytes += $0 }
        }
        bytes[0] = bytes[0] & 0x7F | 0x01  // positive, and 16 bytes long
        return bytes
    }
}

func peakKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
}

func generate(_ path: String, entries: Int) throws {
    let key = P256.Signing.PrivateKey()
    let issuer = try DistinguishedName { CommonName("CRL Benchmark CA") }
    var serials = Serials(state: 42)
    let now = Date()
    func time(_ date: Date, _ s: inout DER.Serializer) throws {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        try s.serialize(UTCTime(year: c.year!, month: c.month!, day: c.day!, hours: c.hour!, minutes: c.minute!, seconds: c.second!))
    }
    let algorithm: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    var tbs = DER.Serializer()
    try tbs.appendConstructedNode(identifier: .sequence) { s in
        try s.serialize(1)
        try s.appendConstructedNode(identifier: .sequence) { s in try s.serialize(algorithm) }
        try s.serialize(issuer)
        try time(now.addingTimeInterval(-3600), &s)
        try time(now.addingTimeInterval(7 * 86400), &s)
        try s.appendConstructedNode(identifier: .sequence) { s in
            for i in 0..<entries {
                try s.appendConstructedNode(identifier: .sequence) { s in
                    try s.serialize(ArraySlice(serials.next()))
                    try time(now.addingTimeInterval(-Double(i % 86400)), &s)
                    if i % 10 == 0 {
                        try s.serializeSequenceOf([Certificate.Extension(oid: [2, 5, 29, 21], critical: false, value: [0x0A, 0x01, 0x01])])
                    }
                }
            }
        }
        try s.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { s in
            var number = DER.Serializer()
            try number.serialize(1)
            try s.serializeSequenceOf([Certificate.Extension(oid: [2, 5, 29, 20], critical: false, value: number.serializedBytes[...])])
        }
    }
    let signature = try key.signature(for: tbs.serializedBytes).derRepresentation
    var crl = DER.Serializer()
    try crl.appendConstructedNode(identifier: .sequence) { s in
        s.serializeRawBytes(tbs.serializedBytes)
        try s.appendConstructedNode(identifier: .sequence) { s in try s.serialize(algorithm) }
        try s.serialize(ASN1BitString(bytes: ArraySlice(signature)))
    }
    try Data(crl.serializedBytes).write(to: URL(fileURLWithPath: path))
    print("wrote \(path): \(entries) entries, \(crl.serializedBytes.count) bytes")
}

func read(_ path: String, lookups: Int) throws {
    let before = residentKiB()
    let start = DispatchTime.now().uptimeNanoseconds
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let loaded = DispatchTime.now().uptimeNanoseconds
    let crl = try CertificateRevocationList(bytes: bytes)
    let parsed = DispatchTime.now().uptimeNanoseconds
    let afterParse = residentKiB()
    var listed = Serials(state: 42)
    var absent = Serials(state: 7)
    let probes = (0..<lookups).map { i in Certificate.SerialNumber(bytes: i % 2 == 0 ? listed.next() : absent.next()) }
    let lookupStart = DispatchTime.now().uptimeNanoseconds
    var found = 0
    for probe in probes where crl.lists(probe) { found += 1 }
    let lookupEnd = DispatchTime.now().uptimeNanoseconds
    guard found == (lookups + 1) / 2 else { throw BenchmarkError(description: "found \(found) of \((lookups + 1) / 2) listed serials") }
    let perLookup = Double(lookupEnd - lookupStart) / Double(max(lookups, 1))
    print(String(format: "ours: read file %.3f s, parse+index %.3f s (%d entries, %d bytes), lookup %.0f ns each (%d lookups, %d found), "
                 + "RSS %d MiB before, %d MiB after parse, peak %d MiB",
                 Double(loaded - start) / 1e9, Double(parsed - loaded) / 1e9, crl.revokedCount, bytes.count, perLookup, lookups, found,
                 before / 1024, afterParse / 1024, peakKiB() / 1024))
}

var arguments = BenchmarkArguments(CommandLine.arguments.dropFirst())
do {
    guard let command = arguments.next(), let path = arguments.next() else {
        throw BenchmarkError(description: "usage: CRLBenchmark generate FILE [--entries N] | read FILE [--lookups N]")
    }
    var entries = 1_000_000, lookups = 100_000
    while let flag = arguments.next() {
        switch flag {
        case "--entries": entries = try arguments.value(for: flag, expected: "a count") { Int($0) }
        case "--lookups": lookups = try arguments.value(for: flag, expected: "a count") { Int($0) }
        default: throw BenchmarkError(description: "unknown option \(flag)")
        }
    }
    switch command {
    case "generate": try generate(path, entries: entries)
    case "read": try read(path, lookups: lookups)
    default: throw BenchmarkError(description: "unknown command \(command)")
    }
} catch {
    FileHandle.standardError.write(Data("CRLBenchmark: \(error)\n".utf8))
    exit(1)
}
