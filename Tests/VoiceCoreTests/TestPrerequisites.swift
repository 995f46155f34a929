import Foundation
import VoiceTestKit
import XCTest

/// What some tests need from the machine: the `voicecall` binary, Kamailio. Missing, they skip
/// locally and fail under `CI=true`.
enum TestPrerequisites {
    private static var underCI: Bool { ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" }

    /// The `voicecall` binary built next to this test bundle.
    static func voicecall() throws -> String {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("voicecall").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        let message = "voicecall is not built next to the tests (\(path)); run `swift build` first"
        if underCI { XCTFail(message) }
        throw XCTSkip(message)
    }

    /// Returns when pjsip's Python binding (PyPI `pjsua2-python`) is installed.
    static func pjsua2() throws {
        try require(SIPPeerRequirement.check("pjsua2 (PyPI pjsua2-python)", isInstalled: { _ in PJSUAPeer.isInstalled }))
    }

    /// Returns when linphone's command-line client (Debian's `linphone-cli`) is installed.
    static func linphone() throws {
        try require(SIPPeerRequirement.check("linphonec (Debian's linphone-cli)", isInstalled: { _ in LinphonePeer.isInstalled }))
    }

    /// Returns when Kamailio is installed.
    static func kamailio() throws { try installed("kamailio") }

    /// Returns when Kamailio's WebSocket modules are installed.
    static func kamailioWebSocket() throws {
        try require(SIPPeerRequirement.check("kamailio-websocket-modules", isInstalled: { _ in KamailioPeer.hasWebSocketModules() }))
    }

    /// Returns when the executable `name` (a peer: `kamailio`, `turnserver`) is installed.
    static func installed(_ name: String) throws { try require(SIPPeerRequirement.check(name)) }

    /// Runs on when the peer is there; skips locally and fails under CI when it is not.
    private static func require(_ requirement: SIPPeerRequirement) throws {
        switch requirement {
        case .available: return
        case .skip(let message): throw XCTSkip(message)
        case .fail(let message):
            XCTFail(message)
            throw XCTSkip(message)
        }
    }
}
