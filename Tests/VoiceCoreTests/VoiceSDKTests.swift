import XCTest
@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport
import VoiceSIPAgent
import NIOCore

final class VoiceSDKTests: XCTestCase {
    func testVersionIsSemantic() {
        let parts = VoiceSDK.version.split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        XCTAssertTrue(parts.allSatisfy { Int($0) != nil })
    }

    /// A group made for clients has the signaling profile on each thread, as the SDK's default
    /// group does.
    func testGroupsMadeForClientsHaveTheSignalingProfile() throws {
        let group = VoiceClient.makeEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let made = try Array(group.makeIterator()).map { try $0.submit { SignalingThreadProfile.current }.wait() }
        let reference = try SignalingThreadProfile.apply(to: group).wait()
        XCTAssertEqual(made, reference, "applying again changes nothing: the group already had it")
        let shared = try VoiceClient.defaultEventLoopGroup.next().submit { SignalingThreadProfile.current }.wait()
        XCTAssertEqual(shared, made[0])
    }
}
