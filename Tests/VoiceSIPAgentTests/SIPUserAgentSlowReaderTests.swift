import Foundation
import VoiceTestKit
import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

/// A TCP client that pipelines requests and never reads the responses must not make the agent
/// buffer them without bound: the agent stops reading until the peer reads (backpressure).
final class SIPUserAgentSlowReaderTests: XCTestCase {
    func testAClientThatNeverReadsIsThrottledNotBuffered() throws {
        let target = try SIPTestAgent(user: "target", transport: .tcp)
        defer { target.shutdown() }
        let port = target.endpoint.port
        let hog = try XCTUnwrap(RawTCPClient(from: "127.0.0.2", to: "127.0.0.1", port: port, receiveBuffer: 16 << 10))
        // 64 OPTIONS per write, each with its own branch, for four seconds.
        var batch: [UInt8] = []
        for i in 0..<64 { batch += SIPTransportFixtures.options(branch: "z9hG4bKslow\(i)", transport: "TCP") }
        var taken = 0
        var offset = 0
        let started = Date()
        var batches = 0
        var takenAtHalfTime: Int?
        while Date().timeIntervalSince(started) < 4 {
            if takenAtHalfTime == nil, Date().timeIntervalSince(started) >= 2 { takenAtHalfTime = taken }
            let n = hog.sendNow(offset == 0 ? batch : Array(batch[offset...]))
            if n < 0 { break }
            if n == 0 {
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            taken += n
            offset = (offset + n) % batch.count
            if offset == 0 {
                batches += 1
                // A fresh set of branches each time: every request is a new transaction.
                batch = []
                for i in 0..<64 { batch += SIPTransportFixtures.options(branch: "z9hG4bKslow\(batches)x\(i)", transport: "TCP") }
            }
        }
        let lateTaken = taken - (takenAtHalfTime ?? 0)
        print("a client that never reads got \(taken / 1024) KiB of requests taken in 4 s, \(lateTaken / 1024) KiB in the last 2 s")
        XCTAssertLessThan(taken, 16 << 20)
        XCTAssertLessThan(lateTaken, 128 << 10, "the agent stopped reading once its responses were not being read")
        // Meanwhile everybody else is served.
        let other = try XCTUnwrap(RawTCPClient(from: "127.0.0.3", to: "127.0.0.1", port: port))
        other.sendNow(SIPTransportFixtures.options(branch: "z9hG4bKpolite", transport: "TCP"))
        let reply = other.receiveText(within: 5, until: "\r\n\r\n")
        XCTAssertTrue(reply.hasPrefix("SIP/2.0 200"), reply)
    }
}
