import Foundation
import X509

/// The operating system's root certificates, loaded once per process and shared.
///
/// On Linux the bundle comes from `SSL_CERT_FILE` and `SSL_CERT_DIR` when set, else from the usual
/// distribution paths. A certificate that cannot be parsed is skipped and reported in ``skipped``;
/// it never empties the store (swift-certificates' own loader drops the whole bundle in that case).
public struct SystemRoots: Sendable {
    /// The roots, including any swift-certificates cannot use (kept so a verdict can name them; see ``skipped``).
    public let certificates: [InputCertificate]
    /// What was not used, one sentence each naming the file (and the line of its PEM block) and the reason:
    /// files or directories that cannot be read, blocks that are not certificates, roots swift-certificates cannot use.
    public let skipped: [String]
    /// Where the roots came from.
    public let sources: [String]
    /// The environment variables that chose ``sources`` (`SSL_CERT_FILE=/etc/ssl/mine.pem`); empty when the
    /// distribution's usual locations were used.
    public let settings: [String]

    /// The usual CA bundle files, first readable one wins.
    package static let bundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Alpine, Arch
        "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL
        "/etc/ssl/ca-bundle.pem",  // openSUSE
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        "/etc/ssl/cert.pem",  // macOS, FreeBSD, Alpine
    ]
    /// The usual hashed-certificate folders, read when no bundle is.
    package static let directoryPaths = ["/etc/ssl/certs", "/system/etc/security/cacerts"]

    /// The process-wide roots, read on first use.
    public static let shared: SystemRoots = load(environment: ProcessInfo.processInfo.environment)

    /// Loads roots as ``shared`` does, from the given environment.
    public static func load(environment: [String: String]) -> SystemRoots {
        let chosen = sources(environment: environment)
        return load(files: chosen.files, directories: chosen.directories, settings: chosen.settings)
    }

    /// The DER of every root ``shared`` holds, decoded but not parsed. Whether a custom anchor is also a root of the store
    /// is asked of every anchors-only set; parsing the whole store to answer it made each `ats --anchors` run about
    /// 0.9 s slower (debug build).
    static let sharedMembers: Set<DERKey> = {
        let chosen = sources(environment: ProcessInfo.processInfo.environment)
        return members(files: chosen.files, directories: chosen.directories)
    }()

    /// The files and directories ``shared`` reads in `environment`, and the variables that chose them.
    static func sources(environment: [String: String]) -> (files: [String], directories: [String], settings: [String]) {
        var files: [String] = []
        var dirs: [String] = []
        var settings: [String] = []
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
            files.append(file)
            settings.append("SSL_CERT_FILE=\(file)")
        }
        if let dir = environment["SSL_CERT_DIR"], !dir.isEmpty {
            dirs += dir.split(separator: ":").map(String.init)
            settings.append("SSL_CERT_DIR=\(dir)")
        }
        if files.isEmpty && dirs.isEmpty {
            if let first = bundlePaths.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
                files.append(first)
            } else {
                // Only the usual places this system has: a missing Android directory on Linux is no fault.
                var isDirectory: ObjCBool = false
                dirs = directoryPaths.filter { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue }
            }
        }
        return (files, dirs, settings)
    }

    /// Loads roots from explicit bundle files and hashed directories.
    public static func load(files: [String], directories: [String]) -> SystemRoots {
        load(files: files, directories: directories, settings: [])
    }

    static func load(files: [String], directories: [String], settings: [String]) -> SystemRoots {
        var certs: [InputCertificate] = []
        var seen = Set<[UInt8]>()
        var (paths, skipped) = storeFiles(files: files, directories: directories)
        for path in paths {
            let (good, bad) = readLeniently(path: path)
            for c in good where seen.insert(c.der).inserted { certs.append(c) }
            skipped += bad
        }
        return SystemRoots(certificates: certs, skipped: skipped, sources: files + directories, settings: settings)
    }

    /// The DER of each certificate that ``load(files:directories:)`` would read, without parsing it: the same files, and
    /// every PEM certificate block whose base64 decodes. That is a superset of the roots `load` keeps (it refuses some of
    /// those blocks for their framing or content), which errs the strict way: an extra member can only make Apple's
    /// public-root rules apply to an anchor that holds the same bytes.
    static func members(files: [String], directories: [String]) -> Set<DERKey> {
        var members = Set<DERKey>()
        for path in storeFiles(files: files, directories: directories).paths {
            guard let data = try? InputFile.read(path) else { continue }
            let bytes = Array(data)
            if ByteSearch.contains(pemBegin, in: bytes) {
                for der in pemCertificateDERs(bytes) { members.insert(DERKey(der)) }
            } else if let certificates = try? CertificateLoader.certificates(from: bytes, source: path) {
                // DER files are rare in a store, and may hold several certificates back to back: read as load reads them.
                for c in certificates { members.insert(DERKey(c.der)) }
            }
        }
        return members
    }

    private static let pemBegin = Array("-----BEGIN ".utf8)
    private static let certificateBegins = ["-----BEGIN CERTIFICATE-----", "-----BEGIN TRUSTED CERTIFICATE-----", "-----BEGIN X509 CERTIFICATE-----"]
        .map { Array($0.utf8) }
    private static let pemEnd = Array("-----END".utf8)

    /// The decoded body of each certificate block in a PEM text: one pass over its bytes, lines found with `memchr` and
    /// copied whole. This runs for every process that trusts anchors of its own, where splitting the store into Swift
    /// strings cost 0.3 s in a debug build, and a loop over each byte still 60 ms.
    static func pemCertificateDERs(_ input: [UInt8]) -> [[UInt8]] {
        // As load reads them: CR alone ends a line in a file that has no LF, and a line may be indented.
        let bytes = input.contains(0x0A) ? input : input.map { $0 == 0x0D ? 0x0A : $0 }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            var result: [[UInt8]] = []
            var body: [UInt8] = []
            var inBlock = false
            var start = 0
            while start < buffer.count {
                let newline: UnsafeMutableRawPointer? = memchr(base + start, 0x0A, buffer.count - start)
                let end = newline.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? buffer.count
                var first = start
                while first < end, base[first] == 0x20 || base[first] == 0x09 { first += 1 }
                let line = UnsafeBufferPointer(start: base + first, count: end - first)
                if line.first == 0x2D {  // "-"
                    if certificateBegins.contains(where: { Self.starts(line, with: $0) }) {
                        inBlock = true
                        body.removeAll(keepingCapacity: true)
                    } else if inBlock && Self.starts(line, with: pemEnd) {
                        inBlock = false
                        // Line ends (CR) and blanks are skipped by the decoder.
                        if let der = Data(base64Encoded: Data(body), options: .ignoreUnknownCharacters), !der.isEmpty { result.append(Array(der)) }
                    }
                } else if inBlock && memchr(base + first, 0x3A, line.count) == nil {  // RFC 1421 headers (Proc-Type: …) are not base64
                    body.append(contentsOf: line)
                }
                start = end + 1
            }
            return result
        }
    }

    private static func starts(_ line: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
        guard line.count >= prefix.count else { return false }
        for i in 0..<prefix.count where line[i] != prefix[i] { return false }
        return true
    }

    /// The files to read: `files`, then each directory's certificate files in name order; and a sentence for each
    /// directory that cannot be read.
    private static func storeFiles(files: [String], directories: [String]) -> (paths: [String], skipped: [String]) {
        var paths = files
        var skipped: [String] = []
        for dir in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                skipped.append("\(dir): not a readable directory")
                continue
            }
            for name in names.sorted() where name.hasSuffix(".pem") || name.hasSuffix(".crt") || name.range(of: #"^[0-9a-f]{8}\.[0-9]+$"#, options: .regularExpression) != nil {
                paths.append(dir + "/" + name)
            }
        }
        return (paths, skipped)
    }

    /// Why there is no root to anchor a chain, naming what was read; nil when there is one.
    public var emptyReason: String? {
        guard !certificates.contains(where: { $0.certificate != nil }) else { return nil }
        let from = settings.isEmpty ? "" : " (\(settings.joined(separator: ", ")))"
        if sources.isEmpty {
            return "none of the usual bundles (\(Self.bundlePaths.joined(separator: ", "))) or directories (\(Self.directoryPaths.joined(separator: ", "))) exists"
        }
        if skipped.isEmpty { return "\(sources.joined(separator: ", ")) holds no certificate\(from)" }
        let shown = skipped.prefix(3).joined(separator: "; ") + (skipped.count > 3 ? "; and \(skipped.count - 3) more" : "")
        return shown + from
    }

    /// Reads each PEM block on its own, so one bad block costs only itself.
    static func readLeniently(path: String) -> ([InputCertificate], [String]) {
        let bytes: [UInt8]
        do { bytes = Array(try InputFile.read(path)) } catch { return ([], ["\(path): cannot read: \(error.reason)"]) }
        var good: [InputCertificate] = []
        // A bundle whose blocks are all well-formed PEM, as a distribution's is, is read in one pass over its bytes; only
        // one with a broken block is split into blocks read one by one.
        if ByteSearch.contains(pemBegin, in: bytes), let blocks = try? CertificateLoader.pemCertificateBlocks(bytes, source: path) {
            var bad: [String] = []
            for block in blocks {
                do {
                    let certificate = try CertificateLoader.certificate(of: block, source: path)
                    good.append(certificate)
                    bad += reportingUnusable([certificate], path: path, line: block.line).1
                } catch {
                    bad.append("\(path):\(block.line): skipped, \(Self.reason(error))")
                }
            }
            return (good, bad)
        }
        var bad = forEachDocument(bytes, path: path) { (bytes, line) throws(CertificateInputError) -> [String] in
            let (usable, unusable) = reportingUnusable(try CertificateLoader.certificates(from: bytes, source: path), path: path, line: line)
            good += usable
            return unusable
        }
        if good.isEmpty && bad.isEmpty { bad.append("\(path): holds no certificate") }
        return (good, bad)
    }

    /// Hands `read` the file `bytes` (read from `path`) whole when it is DER (line nil), else each of its certificate PEM
    /// blocks on its own with the line of its BEGIN, so one bad block costs only itself. Returns what was skipped, one
    /// sentence each: what `read` returned or threw, and the blocks that have no END line.
    private static func forEachDocument(_ bytes: [UInt8], path: String,
                                        _ read: (_ bytes: [UInt8], _ line: Int?) throws(CertificateInputError) -> [String]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("-----BEGIN") else {
            do { return try read(bytes, nil) } catch {
                // Name the file once: most of these errors name it themselves.
                switch error {
                case .badPEMBlock, .malformed, .empty: return ["\(path): skipped, \(Self.reason(error))"]
                case .unreadableFile, .pkcs7, .tooManyCertificates: return [error.description]
                }
            }
        }
        var bad: [String] = []
        var current: [Substring] = []
        var inBlock = false
        var blockLine = 0
        for (n, line) in text.lines.enumerated() {
            if line.hasPrefix("-----BEGIN CERTIFICATE") || line.hasPrefix("-----BEGIN TRUSTED CERTIFICATE") {
                if inBlock { bad.append("\(path):\(blockLine): skipped, the block has no END line before the BEGIN line on line \(n + 1)") }
                inBlock = true
                current = [line]
                blockLine = n + 1
            } else if inBlock {
                current.append(line)
                if line.hasPrefix("-----END") {
                    inBlock = false
                    do { bad += try read(Array(current.joined(separator: "\n").utf8), blockLine) } catch {
                        bad.append("\(path):\(blockLine): skipped, \(Self.reason(error))")
                    }
                }
            }
        }
        if inBlock { bad.append("\(path):\(blockLine): skipped, the block has no END line") }
        return bad
    }

    /// Why one block is not a certificate, without the place the loader gives it: the block was read on its own, so
    /// its line and number there are not the bundle's.
    private static func reason(_ error: CertificateInputError) -> String {
        switch error {
        case .badPEMBlock(_, _, _, let reason), .malformed(_, let reason): return "it is not a valid certificate (\(reason))"
        case .empty: return "it holds no certificate"
        case .unreadableFile, .pkcs7, .tooManyCertificates: return error.description
        }
    }

    /// The certificates, and a sentence for each swift-certificates cannot use (an RSA-1024 or RSA-PSS root): kept,
    /// so that a verdict can name it, but no anchor.
    private static func reportingUnusable(_ certificates: [InputCertificate], path: String, line: Int?) -> ([InputCertificate], [String]) {
        let place = line.map { "\(path):\($0)" } ?? path
        let unusable = certificates.compactMap { c in c.parseFailure.map { "\(place): skipped \(c.subjectDescription), which cannot be used: \($0)" } }
        return (certificates, unusable)
    }
}
