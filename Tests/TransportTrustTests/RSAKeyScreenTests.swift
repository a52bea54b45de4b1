import _CryptoExtras
import SwiftASN1
import Testing

@testable import TransportTrust

@Suite struct RSAKeyScreenTests {
    /// A big-endian integer of exactly `bits` bits (top bit set), odd or even, with a varied middle.
    static func integer(bits: Int, odd: Bool, seed: UInt8 = 0x5A) -> [UInt8] {
        guard bits > 0 else { return [0] }
        var bytes = (0..<((bits + 7) / 8)).map { UInt8(truncatingIfNeeded: Int(seed) &* ($0 + 7)) | 0x01 }
        let topBits = bits - (bytes.count - 1) * 8
        bytes[0] = (bytes[0] | 0x80) >> (8 - topBits)
        if !odd { bytes[bytes.count - 1] &= 0xFE } else { bytes[bytes.count - 1] |= 0x01 }
        return bytes
    }

    static let exponents: [[UInt8]] = [[0], [1], [2], [3], [0x01, 0x00, 0x01], [0x01, 0x00, 0x00], [0x00, 0x01, 0x00, 0x01]]
        + [1, 2, 31, 32, 33, 34, 40, 64].flatMap { bits in [true, false].map { odd in integer(bits: bits, odd: odd, seed: 0x33) } }

    /// The screen reads the key's numbers itself; BoringSSL's own check (reached through swift-crypto's `init(n:e:)`,
    /// which frees nothing twice) must give the same answer at every boundary it draws. `init(n:e:)` also refuses
    /// any modulus under 2,048 bits, in Swift, from swift-crypto 4 on, so BoringSSL answers alone from 2,048 bits up;
    /// and BoringSSL's largest modulus is 8,192 bits in 4.x, 16,384 in 3.x, so the screen stops at the smaller.
    @Test func agreesWithBoringSSLAtEveryBoundary() {
        let moduli = [2048, 2049, 4096, 8191, 8192].flatMap { bits in
            [true, false].map { odd in Self.integer(bits: bits, odd: odd) }
        }
        var compared = 0
        for n in moduli {
            for e in Self.exponents {
                let boringSSL = (try? _RSA.Signing.PublicKey(n: n, e: e)) != nil
                #expect(RSAKeyScreen.boringSSLChecksPass(modulus: n[...], exponent: e[...]) == boringSSL,
                        "modulus of \(RSAKeyScreen.bitLength(n[...])) bits, odd \(n.last.map { $0 & 1 } ?? 0), exponent \(e)")
                compared += 1
            }
        }
        #expect(compared == moduli.count * Self.exponents.count)
    }

    /// Below 2,048 bits swift-crypto 4 cannot be asked, and above 8,192 the two versions' BoringSSL disagree: the
    /// screen's own bounds, 512 and 8,192 bits, with an odd modulus and the usual exponent.
    @Test(arguments: [(0, false), (8, false), (511, false), (512, true), (513, true), (1024, true), (2047, true),
                      (8192, true), (8193, false), (16_383, false), (16_384, false), (16_385, false)])
    func refusesModuliOutsideBothVersionsBounds(bits: Int, passes: Bool) {
        let n = Self.integer(bits: bits, odd: true)
        #expect(RSAKeyScreen.boringSSLChecksPass(modulus: n[...], exponent: [0x01, 0x00, 0x01][...]) == passes)
        let even = Self.integer(bits: bits, odd: false)
        #expect(!RSAKeyScreen.boringSSLChecksPass(modulus: even[...], exponent: [0x01, 0x00, 0x01][...]))
    }

    @Test func knowsBothRSAAlgorithmsByTheirEncoding() throws {
        for (oid, der) in [(RSAKeyScreen.rsaEncryption, RSAKeyScreen.rsaEncryptionDER), (RSAKeyScreen.rsaPSS, RSAKeyScreen.rsaPSSDER)] {
            var serializer = DER.Serializer()
            try serializer.serialize(oid)
            #expect(serializer.serializedBytes == der)
        }
    }

    @Test func countsBitsPastLeadingZeroBytes() {
        #expect(RSAKeyScreen.bitLength([]) == 0)
        #expect(RSAKeyScreen.bitLength([0, 0]) == 0)
        #expect(RSAKeyScreen.bitLength([0x01]) == 1)
        #expect(RSAKeyScreen.bitLength([0x00, 0x80, 0x00]) == 16)
        #expect(RSAKeyScreen.bitLength([0x01, 0x00, 0x01]) == 17)
    }
}
