/// One parser of outside bytes, driven by libFuzzer: `run` hands it the input and checks
/// what must hold for any input (a crash, a trap or a sanitizer report is the finding).
struct FuzzTarget: Sendable {
    let name: String
    /// What the target reads, for `allspark-fuzz --list` and the campaign's report.
    let parses: String
    let run: @Sendable ([UInt8]) -> Void
}
