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

    public static let bundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Alpine, Arch
        "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL
        "/etc/ssl/ca-bundle.pem",  // openSUSE
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        "/etc/ssl/cert.pem",  // macOS, FreeBSD, Alpine
    ]
    public static let directoryPaths = ["/etc/ssl/certs", "/system/etc/security/cacerts"]

    /// The process-wide roots, read on first use.
    public static let shared: SystemRoots = load(environment: ProcessInfo.processInfo.environment)

    /// Loads roots as ``shared`` does, from the given environment.
    public static func load(environment: [String: String]) -> SystemRoots {
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
        return load(files: files, directories: dirs, settings: settings)
    }

    /// Loads roots from explicit bundle files and hashed directories.
    public static func load(files: [String], directories: [String]) -> SystemRoots {
        load(files: files, directories: directories, settings: [])
    }

    static func load(files: [String], directories: [String], settings: [String]) -> SystemRoots {
        var certs: [InputCertificate] = []
        var skipped: [String] = []
        var seen = Set<[UInt8]>()
        func add(_ c: InputCertificate) {
            if seen.insert(c.der).inserted { certs.append(c) }
        }
        for file in files {
            let (good, bad) = readLeniently(path: file)
            good.forEach(add)
            skipped += bad
        }
        for dir in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                skipped.append("\(dir): not a readable directory")
                continue
            }
            for name in names.sorted() where name.hasSuffix(".pem") || name.hasSuffix(".crt") || name.range(of: #"^[0-9a-f]{8}\.[0-9]+$"#, options: .regularExpression) != nil {
                let (good, bad) = readLeniently(path: dir + "/" + name)
                good.forEach(add)
                skipped += bad
            }
        }
        return SystemRoots(certificates: certs, skipped: skipped, sources: files + directories, settings: settings)
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
        let data: Data
        do { data = try InputFile.read(path) } catch { return ([], ["\(path): cannot read: \(error.reason)"]) }
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("-----BEGIN") else {
            do { return reportingUnusable(try CertificateLoader.certificates(from: Array(data), source: path), path: path, line: nil) } catch {
                return ([], ["\(path): \(error)"])
            }
        }
        var good: [InputCertificate] = []
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
                    let block = current.joined(separator: "\n")
                    do {
                        let (usable, unusable) = reportingUnusable(try CertificateLoader.certificates(from: Array(block.utf8), source: path),
                                                                   path: path, line: blockLine)
                        good += usable
                        bad += unusable
                    } catch {
                        bad.append("\(path):\(blockLine): skipped, \(Self.reason(error))")
                    }
                }
            }
        }
        if inBlock { bad.append("\(path):\(blockLine): skipped, the block has no END line") }
        if good.isEmpty && bad.isEmpty { bad.append("\(path): holds no certificate") }
        return (good, bad)
    }

    /// Why one block is not a certificate, without the place the loader gives it: the block was read on its own, so
    /// its line and number there are not the bundle's.
    private static func reason(_ error: CertificateInputError) -> String {
        switch error {
        case .badPEMBlock(_, _, _, let reason), .malformed(_, let reason): return "it is not a valid certificate (\(reason))"
        case .empty: return "it holds no certificate"
        case .unreadableFile, .pkcs7: return error.description
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
