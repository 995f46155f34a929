import XCTest
@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class VoiceSIPTests: XCTestCase {
    func testUserAgentNamesTheStackAndVersion() {
        XCTAssertEqual(VoiceSIP.userAgent, "VoiceSDK/\(VoiceSIP.version)")
        XCTAssertEqual(VoiceSIP.version.split(separator: ".").count, 3)
    }
}
