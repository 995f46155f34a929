import VoiceTestKit
import XCTest

/// A PESQ scorer, or the test is skipped (locally) or fails (under `CI=true`) without one.
func requirePESQScorer() throws -> PESQScorer {
    switch SIPPeerRequirement.check("pesq", isInstalled: { _ in PESQScorer.isInstalled }) {
    case .available: break
    case .skip(let message): throw XCTSkip(message)
    case .fail(let message):
        XCTFail(message)
        throw XCTSkip(message)
    }
    return try PESQScorer()
}
