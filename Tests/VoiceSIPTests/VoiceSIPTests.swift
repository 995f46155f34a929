import XCTest
@testable import VoiceSIP

final class VoiceSIPTests: XCTestCase {
    func testUserAgentNamesTheStackAndVersion() {
        XCTAssertEqual(VoiceSIP.userAgent, "VoiceSDK/\(VoiceSIP.version)")
        XCTAssertEqual(VoiceSIP.version.split(separator: ".").count, 3)
    }
}
