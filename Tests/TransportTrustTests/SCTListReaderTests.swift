import Foundation
import Testing

@testable import TransportTrust

@Suite struct SCTListReaderTests {
    /// A v1 SCT body with a signature of `n` bytes.
    static func sct(signatureBytes n: Int = 4, version: UInt8 = 0) -> [UInt8] {
        [version] + [UInt8](repeating: 7, count: 32) + [0, 0, 1, 0x90, 0, 0, 0, 0] + [0, 0] + [4, 3] + [UInt8(n >> 8), UInt8(n & 0xff)]
            + [UInt8](repeating: 9, count: n)
    }

    static func list(_ scts: [[UInt8]]) -> [UInt8] {
        let body = scts.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xff)] + $0 }
        return [UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
    }

    @Test func readsEveryField() throws {
        let scts = try SCTListReader.read(Self.list([Self.sct(), Self.sct(signatureBytes: 2)])[...])
        #expect(scts.count == 2)
        #expect(scts[0].logID == [UInt8](repeating: 7, count: 32))
        #expect(scts[0].timestamp == 0x0190_0000_0000)
        #expect(scts[0].hashAlgorithm == 4 && scts[0].signatureAlgorithm == 3)
        #expect(scts[1].signature == [9, 9])
    }

    @Test func anotherVersionIsKeptButNotRead() throws {
        let scts = try SCTListReader.read(Self.list([[1, 0xde, 0xad]])[...])
        #expect(scts.count == 1 && !scts[0].isVersion1)
    }

    @Test(arguments: [
        ([], "ends early"),
        ([0x00], "ends early"),
        ([0x00, 0x00], "holds no SCT"),
        ([0x00, 0x05, 0x00, 0x00], "list length says 5 bytes but 2 follow"),
        ([0x00, 0x04, 0x00, 0x03, 0x00, 0x01], "3 bytes were declared at byte 4, 2 remain"),
    ] as [([UInt8], String)])
    func refusesMalformedLists(bytes: [UInt8], reason: String) {
        let error = #expect(throws: SCTListError.self) { try SCTListReader.read(bytes[...]) }
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func anEntryThatCannotBeReadIsKeptWithItsProblemAndTheOthersAreRead() throws {
        // trustd drops only the SCT it cannot read; the list's own framing still has to hold.
        var long = Self.sct()
        long.append(0)
        let short = Array(Self.sct().dropLast())
        let scts = try SCTListReader.read(Self.list([[], long, Self.sct(), short])[...])
        #expect(scts.count == 4)
        #expect(scts[0].problem == "it cannot be read: it is empty", "\(scts[0])")
        #expect(scts[1].problem == "it cannot be read: it has 1 bytes after its signature", "\(scts[1])")
        #expect(scts[2].problem == nil && scts[2].isVersion1)
        #expect(scts[3].problem?.contains("ends early") == true, "\(scts[3])")
        #expect(scts.filter(\.isVersion1).count == 1)
    }

    /// The largest list an extension can carry: 65,535 bytes of one-byte SCTs of an unknown version, or of
    /// minimal v1 SCTs. Either stops at the count bound after reading a few hundred bytes.
    @Test func aHostileListEndsAtTheCountBound() {
        let tiny = Array(repeating: [UInt8(5)], count: 21_000)
        #expect(throws: SCTListError.tooMany(limit: SCTListReader.maximumCount)) { try SCTListReader.read(Self.list(tiny)[...]) }
        let many = Array(repeating: Self.sct(signatureBytes: 0), count: 1_300)
        #expect(throws: SCTListError.tooMany(limit: SCTListReader.maximumCount)) { try SCTListReader.read(Self.list(many)[...]) }
        #expect(throws: Never.self) { try SCTListReader.read(Self.list(Array(repeating: Self.sct(), count: 32))[...]) }
    }
}
