import Foundation
import X509

/// The operating system's root certificates, loaded once per process and shared.
///
/// On Linux the bundle comes from `SSL_CERT_FILE` and `SSL_CERT_DIR` when set, else from the usual
/// distribution paths. A certificate that cannot be parsed is skipped and reported in ``skipped``;
/// it never empties the store (swift-certificates' own loader drops the whole bundle in that case).
public struct SystemRoots: Sendable {
    public let certificates: [InputCertificate]
    /// Files or PEM blocks that could not be read, each with the reason.
    public let skipped: [String]
    /// Where the roots came from.
    public let sources: [String]

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
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty { files.append(file) }
        if let dir = environment["SSL_CERT_DIR"], !dir.isEmpty {
            dirs += dir.split(separator: ":").map(String.init)
        }
        if files.isEmpty && dirs.isEmpty {
            if let first = bundlePaths.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
                files.append(first)
            } else {
                dirs = directoryPaths
            }
        }
        return load(files: files, directories: dirs)
    }

    /// Loads roots from explicit bundle files and hashed directories.
    public static func load(files: [String], directories: [String]) -> SystemRoots {
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
        return SystemRoots(certificates: certs, skipped: skipped, sources: files + directories)
    }

    /// Reads each PEM block on its own, so one bad block costs only itself.
    static func readLeniently(path: String) -> ([InputCertificate], [String]) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], ["\(path): cannot read"]) }
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("-----BEGIN") else {
            do { return (try CertificateLoader.certificates(from: Array(data), source: path), []) } catch {
                return ([], ["\(path): \(error)"])
            }
        }
        var good: [InputCertificate] = []
        var bad: [String] = []
        var current: [Substring] = []
        var inBlock = false
        var blockLine = 0
        for (n, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.hasPrefix("-----BEGIN CERTIFICATE") || line.hasPrefix("-----BEGIN TRUSTED CERTIFICATE") {
                inBlock = true
                current = [line]
                blockLine = n + 1
            } else if inBlock {
                current.append(line)
                if line.hasPrefix("-----END") {
                    inBlock = false
                    let block = current.joined(separator: "\n")
                    do { good += try CertificateLoader.certificates(from: Array(block.utf8), source: path) } catch {
                        bad.append("\(path):\(blockLine): skipped, \(error)")
                    }
                }
            }
        }
        return (good, bad)
    }
}
