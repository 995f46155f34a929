import VoiceEmbedded
import Foundation
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Digits both ways with real SIP stacks on loopback: pjsip (pjsua2) and baresip press keys
/// that reach our delegate once each, and hear the keys our app presses, over RFC 4733 and
/// over SIP INFO `application/dtmf-relay`.
final class CallDigitsInteropTests: XCTestCase {
    /// Our client calls a pjsua2 that answers and runs `script`; returns both once connected.
    private func callPJSUA(
        script: [PJSUAPeer.Step], telephoneEvents: Bool = true
    ) throws -> (peer: PJSUAPeer, client: TestVoiceClient, call: Call, delegate: RecordingCallDelegate) {
        let port = try SIPPeerProcess.freePort()
        let peer = try PJSUAPeer(PJSUAPeer.Options(port: port, script: script))
        let client = try TestVoiceClient("alice") { configuration in
            configuration.telephoneEvents = telephoneEvents
            configuration.mediaSecurity = .sdes  // pjsua2 as installed keys with SDES (RTP/SAVP)
        }
        let delegate = RecordingCallDelegate()
        let call = client.connect(to: "sip:pj@127.0.0.1:\(port)", delegate: delegate)
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks); pjsua2:\n\(peer.logTail)")
        XCTAssertTrue(peer.waitForLine("CONFIRMED", timeout: 5), peer.logTail)
        return (peer, client, call, delegate)
    }

    func testPJSUAPressesKeysOverRFC4733AndINFOAndHearsOurs() throws {
        try TestPrerequisites.pjsua2()
        let (peer, client, call, delegate) = try callPJSUA(script: [.rfc4733("123#"), .sleep(1.2), .info("*4"), .sleep(3)])
        defer {
            call.disconnect()
            client.client.shutdown()
            peer.stop()
        }
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.digitString == "123#*4" }, "\(delegate.digitString); pjsua2:\n\(peer.logTail)")
        let digits = delegate.digits.withLock { $0 }
        XCTAssertEqual(digits.map(\.transport), [.rtpEvent, .rtpEvent, .rtpEvent, .rtpEvent, .sipInfo, .sipInfo])
        XCTAssertEqual(digits.last?.duration ?? 0, 0.16, accuracy: 0.001, "the Duration pjsua2's INFO carried")
        // And the other way: our keys reach pjsip as RFC 4733.
        call.sendDigits("59*")
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.digits.count == 3 }, peer.logTail)
        XCTAssertEqual(peer.digits.map(\.digit), ["5", "9", "*"])
        XCTAssertEqual(Set(peer.digits.map(\.method)), ["rfc2833"])
    }

    func testWithoutTelephoneEventKeysGoAsINFOBothWaysWithPJSUA() throws {
        try TestPrerequisites.pjsua2()
        let (peer, client, call, delegate) = try callPJSUA(script: [.info("70"), .sleep(3)], telephoneEvents: false)
        defer {
            call.disconnect()
            client.client.shutdown()
            peer.stop()
        }
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.digitString == "70" }, "\(delegate.digitString); pjsua2:\n\(peer.logTail)")
        XCTAssertEqual(delegate.digits.withLock { $0 }.map(\.transport), [.sipInfo, .sipInfo])
        call.sendDigits("8#")
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.digits.count == 2 }, peer.logTail)
        XCTAssertEqual(peer.digits, [.init(digit: "8", method: "info"), .init(digit: "#", method: "info")])
    }

    /// baresip 1.0.0 sends keys only as RFC 4733 (it has no INFO sending), and takes both.
    func testBaresipPressesKeysAndHearsOursBothWays() throws {
        try TestPrerequisites.installed("baresip")
        for telephoneEvents in [true, false] {
            var configuration = BaresipConfiguration()
            configuration.mediaEncryption = "srtp-mand"
            configuration.sipPort = try SIPPeerProcess.freePort()
            let phone = try BaresipPeer(configuration: configuration)
            defer { phone.stop() }
            let client = try TestVoiceClient("alice") { $0.telephoneEvents = telephoneEvents }
            defer { client.client.shutdown() }
            let delegate = RecordingCallDelegate()
            let call = client.connect(to: "sip:bob@127.0.0.1:\(configuration.sipPort)", delegate: delegate)
            defer { call.disconnect() }
            XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks); baresip:\n\(phone.process.logTail())")
            try phone.control.waitForEvent(.callEstablished)
            // Ours to baresip: RFC 4733 when negotiated, INFO when not; baresip reports both.
            call.sendDigits("26")
            for digit in ["2", "6"] {
                XCTAssertNoThrow(try phone.control.waitForEvent(.callDTMFStart, timeout: .seconds(5)) { $0.param == digit }, "\(digit), telephone-event \(telephoneEvents)")
            }
            XCTAssertEqual(phone.control.events(ofType: .callDTMFStart).map(\.param), ["2", "6"], "each once, in order")
            guard telephoneEvents else { continue }
            // baresip's to ours.
            try phone.control.sendDTMF("159")
            XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.digitString == "159" }, delegate.digitString)
            XCTAssertEqual(Set(delegate.digits.withLock { $0 }.map(\.transport)), [.rtpEvent])
        }
    }
}
