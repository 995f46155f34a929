/// One coverage-guided fuzzing harness: a name and a function that must accept any bytes
/// without crashing, hanging or leaking. Parse errors are the expected outcome for most
/// inputs; what a harness checks beyond "no crash" it checks with `precondition`, so a
/// violated invariant is a finding too.
public struct FuzzHarness: Sendable {
    /// The name `scripts/fuzz.sh` takes and the corpus directory is named after.
    public let name: String
    /// What the harness feeds.
    public let summary: String
    /// Runs one input.
    public let run: @Sendable ([UInt8]) -> Void

    public init(name: String, summary: String, run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// The harness named `name`, if any.
    public static func named(_ name: String) -> FuzzHarness? { all.first { $0.name == name } }

    /// Every harness: everything that parses bytes from the network or from files.
    public static let all: [FuzzHarness] = sip + media + core + network
}
