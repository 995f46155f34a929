import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

/// An app that never reads `Call.events` must not make every call a growing buffer.
final class CallEventBufferTests: XCTestCase {
    func testUnreadEventsAreBoundedKeepingTheNewest() async {
        let call = Call(uuid: UUID(), from: "alice", to: "bob", sid: nil, delegateQueue: .main)
        for _ in 0..<1_000 {
            call.eventContinuation.yield(.qualityWarnings(current: [.highJitter], previous: []))
            call.eventContinuation.yield(.qualityWarnings(current: [], previous: [.highJitter]))
        }
        call.eventContinuation.yield(.disconnected(nil))
        call.eventContinuation.finish()
        var read: [CallEvent] = []
        for await event in call.events { read.append(event) }
        XCTAssertEqual(read.count, Call.eventBufferLimit, "2,001 events were never read; only the newest stay")
        XCTAssertEqual(read.last, .disconnected(nil), "the end of the call is among them")
    }
}
