import XCTest
@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class VoiceSDKTests: XCTestCase {
    func testVersionIsSemantic() {
        let parts = VoiceSDK.version.split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        XCTAssertTrue(parts.allSatisfy { Int($0) != nil })
    }
}
