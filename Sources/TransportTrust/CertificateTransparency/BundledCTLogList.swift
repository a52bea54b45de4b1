import Foundation

extension CTLogList {
    /// Apple's list as shipped in this package (`Resources/CTLogList`), read once per process.
    public static func bundled() throws(CTLogListError) -> CTLogList {
        try bundledList.get()
    }

    /// The bundled list's ``summary`` and ``reference``; nil when it cannot be read.
    static let bundledSummary: (text: String, reference: CTLogListReference)? = (try? bundledList.get()).map { ($0.summary, $0.reference) }

    private static let bundledList: Result<CTLogList, CTLogListError> = {
        let json: [UInt8]
        let metadata: [UInt8]
        switch (PackageResources.read("CTLogList/apple_log_list.json"), PackageResources.read("CTLogList/metadata.json")) {
        case (.success(let j), .success(let m)): (json, metadata) = (j, m)
        case (.failure(let missing), _), (_, .failure(let missing)): return .failure(.bundledListMissing(missing.description))
        }
        struct Metadata: Decodable { var confirmedCurrent: String }
        guard let meta = try? JSONDecoder().decode(Metadata.self, from: Data(metadata)),
              let date = RFC3339.parse(meta.confirmedCurrent + "T00:00:00Z")
        else { return .failure(.bundledListMissing("its metadata.json has no confirmedCurrent day")) }
        return Result { () throws(CTLogListError) in try CTLogList(json: json, source: .bundled, date: date) }
    }()
}
