import Foundation
import FuzzTargets

// libFuzzer's binary. SwiftPM gives an executable its own `main`, so libFuzzer's is never linked: this one hands the
// arguments to libFuzzer's driver instead, which then calls `LLVMFuzzerTestOneInput` with each input.

/// The target named by `ATS_FUZZ_TARGET` (one binary serves every target: one link instead of seventeen).
private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["ATS_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.named(name) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("ats-fuzz: set ATS_FUZZ_TARGET to one of: \(names) (scripts/fuzz.sh does)\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

_ = target
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runDriver(&argc, &argv, fuzzOne))
