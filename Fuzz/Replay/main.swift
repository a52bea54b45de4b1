import Foundation
import FuzzTargets

// Replays the saved corpora (Fuzz/Corpus/TARGET and Fuzz/Regressions/TARGET) through each target, once, without
// fuzzing: what CI runs in the normal debug build. A crash or a broken invariant ends the process with a signal.
//
//     ats-fuzz-replay [--verbose] [TARGET...]

let arguments = CommandLine.arguments.dropFirst()
let verbose = arguments.contains("--verbose")
let names = arguments.filter { $0 != "--verbose" }
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let targets = names.isEmpty ? FuzzTarget.all : names.compactMap { name in
    FuzzTarget.named(name) ?? {
        FileHandle.standardError.write(Data("ats-fuzz-replay: no target \(name); targets: \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n".utf8))
        exit(2)
    }()
}

func files(in folder: URL) -> [URL] {
    let found = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
    return found.filter { !$0.hasDirectoryPath && !$0.lastPathComponent.hasPrefix(".") && $0.pathExtension != "md" }
        .sorted { $0.path < $1.path }
}

var total = 0
let started = Date()
for target in targets {
    let inputs = files(in: root.appendingPathComponent("Corpus/\(target.name)")) + files(in: root.appendingPathComponent("Regressions/\(target.name)"))
    guard !inputs.isEmpty else {
        FileHandle.standardError.write(Data("ats-fuzz-replay: \(target.name) has no corpus in Fuzz/Corpus/\(target.name)\n".utf8))
        exit(1)
    }
    let start = Date()
    for input in inputs {
        if verbose { FileHandle.standardError.write(Data("\(target.name): \(input.path)\n".utf8)) }
        target.run(Array((try? Data(contentsOf: input)) ?? Data()))
    }
    total += inputs.count
    print(target.name.padding(toLength: 20, withPad: " ", startingAt: 0) + String(format: " %5d inputs %7.2f s", inputs.count, Date().timeIntervalSince(start)))
}
print(String(format: "fuzz replay: %d inputs through %d targets in %.1f s, no crash", total, targets.count, Date().timeIntervalSince(started)))
