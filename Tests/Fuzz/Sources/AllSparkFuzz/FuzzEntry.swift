import AllSparkNode
import Foundation

/// libFuzzer's two entry points. The target is chosen once, from the name the binary was
/// started under (`fuzz-<target>`, a link scripts/fuzz.sh makes) or `ALLSPARK_FUZZ_TARGET`.
nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> Int32 {
    if getenv("ALLSPARK_FUZZ_LIST") != nil {
        for target in FuzzTargets.all { print(target.name) }
        exit(0)
    }
    let program = argv.pointee[0].map { String(cString: $0) } ?? ""
    let invoked = program.split(separator: "/").last.map(String.init) ?? ""
    let name = invoked.hasPrefix("fuzz-") ? String(invoked.dropFirst(5)) : getenv("ALLSPARK_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTargets.all.first(where: { $0.name == name }) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: " ")
        FileHandle.standardError.write(Data("no fuzz target '\(name)': start this binary as fuzz-<target> or set ALLSPARK_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    // The bounds the node's own entry point sets, so each target meets the node's libav.
    LibavAllocationLimit.install()
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selected?.run(bytes)
    return 0
}
