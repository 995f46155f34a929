import VoiceService
import Foundation
import Logging
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport
import VoiceTestKit

final class InsightsPublisherTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A swift-log handler that keeps what it is given.
    private struct CapturingLogHandler: LogHandler {
        final class Store: @unchecked Sendable {  // guarded by lock
            let lock = NSLock()
            var entries: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []
        }
        let store: Store
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            store.lock.lock()
            store.entries.append((event.level, event.message.description, event.metadata ?? [:]))
            store.lock.unlock()
        }
    }

    func testRecordingPublisherKeepsOrder() {
        let recorder = RecordingInsightsPublisher()
        recorder.publish(.connection(.ringing, callSid: "CA1", at: now))
        recorder.publish(.connection(.connected, callSid: "CA1", at: now))
        recorder.publish(.signalingState(.stable, callSid: "CA2", at: now))
        XCTAssertEqual(recorder.qualifiedNames, ["connection:ringing", "connection:connected", "signaling-state:stable"])
        XCTAssertEqual(recorder.events(in: .connection).count, 2)
        XCTAssertEqual(recorder.events(forCallSid: "CA2").map(\.name), ["stable"])
        recorder.removeAll()
        XCTAssertEqual(recorder.events, [])
    }

    func testRecordingPublisherDropsTheOldestBeyondCapacity() {
        let recorder = RecordingInsightsPublisher(capacity: 3)
        for event in [InsightsConnectionEvent.muted, .unmuted, .hold, .unhold] {
            recorder.publish(.connection(event, callSid: nil, at: now))
        }
        XCTAssertEqual(recorder.events.map(\.name), ["unmuted", "hold", "unhold"])
    }

    func testRecordingPublisherIsSafeFromManyThreads() {
        let recorder = RecordingInsightsPublisher()
        let event = InsightsEvent.connection(.muted, callSid: nil, at: now)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 { recorder.publish(event) }
        }
        XCTAssertEqual(recorder.events.count, 4000)
    }

    func testLoggingPublisherLogsAtTheEventLevelWithMetadata() {
        let store = CapturingLogHandler.Store()
        let logger = Logger(label: "test.insights") { _ in CapturingLogHandler(store: store) }
        let publisher: any InsightsPublisher = LoggingInsightsPublisher(logger: logger)
        publisher.publish(.connectionError(code: 31486, message: "Busy Here", callSid: "CA7", at: now))
        publisher.publish(.qualityWarning(.highRtt, raised: true, callSid: "CA7", at: now))
        publisher.publish(.signalingState(.closed, callSid: nil, at: now))
        publisher.publish(.feedback(score: .fivePoints, issue: .notReported, callSid: "CA7", at: now))
        let entries = store.entries
        XCTAssertEqual(entries.map(\.level), [.error, .warning, .debug, .info])
        XCTAssertEqual(
            entries.map(\.message),
            ["connection:error", "network-quality-warning-raised:high-rtt", "signaling-state:closed", "feedback:received"])
        XCTAssertEqual(entries[0].metadata["callSid"], "CA7")
        XCTAssertEqual(entries[0].metadata["group"], "connection")
        XCTAssertEqual(entries[0].metadata["event"], "error")
        XCTAssertEqual(entries[0].metadata["payload"], #"{"code":31486,"message":"Busy Here"}"#)
        XCTAssertNil(entries[2].metadata["callSid"])
        XCTAssertNil(entries[2].metadata["payload"])
    }
}
