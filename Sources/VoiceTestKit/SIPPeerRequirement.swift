import Foundation

/// Whether a test that needs a real SIP peer runs, skips, or fails.
///
/// Locally a missing peer binary skips the test with a message; under continuous integration
/// (`CI=true` in the environment) a missing peer is a failure, so a broken CI image cannot pass
/// by skipping every interop test. Test targets turn this into `XCTSkip` / `XCTFail`.
public enum SIPPeerRequirement: Hashable, Sendable {
    /// The peer is installed: run the test.
    case available
    /// Not installed, not on CI: skip with this message.
    case skip(String)
    /// Not installed on CI: fail with this message.
    case fail(String)

    /// Decides for the peer binary `name`.
    /// - Parameters:
    ///   - name: The executable name (`baresip`, `kamailio`).
    ///   - environment: The environment to read `CI` from; defaults to the process environment.
    ///   - isInstalled: How to find the binary; defaults to a `PATH` search.
    public static func check(
        _ name: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isInstalled: (String) -> Bool = SIPPeerRequirement.isInstalled
    ) -> SIPPeerRequirement {
        if isInstalled(name) { return .available }
        let hint = "install it with scripts/install-deps.sh"
        if environment["CI"]?.lowercased() == "true" {
            return .fail("\(name) is not installed but CI=true requires it; \(hint)")
        }
        return .skip("\(name) is not installed; skipping the interop test (\(hint))")
    }

    /// Whether the executable `name` is on `PATH` (or in `/usr/sbin`).
    public static func isInstalled(_ name: String) -> Bool { SIPPeerProcess.isInstalled(name) }
}
