import Foundation
import VoiceTestKit
import XCTest

extension XCTestCase {
    /// What the namespace scenarios need: root and iproute2, the `tools` named (kamailio,
    /// turnserver, nft…), and `voicecall` built next to the tests. Missing ones skip the test
    /// locally and fail it under `CI=true`. Returns the path of `voicecall`.
    func namespaceScenarioVoicecall(needing tools: [String] = []) throws -> String {
        var requirements = [NetworkNamespace.requirement()]
        requirements += tools.map { SIPPeerRequirement.check($0) }
        for requirement in requirements {
            switch requirement {
            case .available: break
            case .skip(let why): throw XCTSkip(why)
            case .fail(let why):
                XCTFail(why)
                throw XCTSkip(why)
            }
        }
        return try TestPrerequisites.voicecall()
    }
}
