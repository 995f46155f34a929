import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class InsightsEventTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_123)

    /// Every group and event name of the Insights tables in seeds 000 and 002, as printed there.
    func testEveryTableEventHasAConstant() {
        let tables: [String: [String]] = [
            "connection": [
                "muted", "unmuted", "accepted-by-remote", "ringing", "connected", "disconnect-called",
                "disconnected-by-local", "disconnected-by-remote", "hold", "unhold", "error", "reconnecting",
                "reconnected", "accepted-by-local", "rejected-by-local",
                // Not in the seed's table: a 3xx the call followed (RFC 3261 §8.1.3.4).
                "redirected",
            ],
            "pc-connection-state": ["new", "connecting", "connected", "disconnected", "failed", "closed"],
            "ice-candidate": ["ice-candidate", "selected-ice-candidate-pair"],
            "ice-connection-state": ["new", "checking", "connected", "completed", "closed", "disconnected", "failed"],
            "ice-gathering-state": ["new", "gathering", "complete"],
            "signaling-state": [
                "stable", "have-local-offer", "have-remote-offers", "have-local-pranswer", "have-remote-pranswer",
                "closed",
            ],
            "network-quality-warning-raised": ["high-jitter", "low-mos", "high-packets-lost-fraction", "high-rtt"],
            "network-quality-warning-cleared": ["high-jitter", "low-mos", "high-packets-lost-fraction", "high-rtt"],
            "audio-level-warning-raised": ["constant-audio-input-level"],
            "audio-level-warning-cleared": ["constant-audio-input-level"],
            "feedback": ["received", "received-none"],
            "settings": ["codec"],
            // Not in the seed's tables: the audio interruptions of seed 004, on Linux.
            "audio-interruption": ["began", "ended"],
            // Not in the seed's tables: the stats samples Twilio's SDKs post in batches.
            "quality-metrics-samples": ["metrics-sample"],
        ]
        XCTAssertEqual(Set(InsightsEventGroup.allCases.map(\.rawValue)), Set(tables.keys))
        for group in InsightsEventGroup.allCases {
            XCTAssertEqual(Set(group.eventNames), Set(tables[group.rawValue] ?? []), "group \(group)")
            XCTAssertEqual(group.eventNames.count, tables[group.rawValue]?.count, "group \(group)")
        }
    }

    func testConnectionConstructor() {
        let event = InsightsEvent.connection(.ringing, callSid: "CAabc", at: now)
        XCTAssertEqual(event.group, .connection)
        XCTAssertEqual(event.name, "ringing")
        XCTAssertEqual(event.qualifiedName, "connection:ringing")
        XCTAssertEqual(event.callSid, "CAabc")
        XCTAssertEqual(event.timestamp, now)
        XCTAssertEqual(event.level, .info)
        XCTAssertEqual(event.payload, [:])
        XCTAssertEqual(InsightsEvent.connection(.acceptedByLocal, callSid: nil, at: now).name, "accepted-by-local")
        XCTAssertEqual(InsightsEvent.connection(.disconnectCalled, callSid: nil, at: now).name, "disconnect-called")
    }

    func testRejectErrorEventCarriesCodeAndMessage() {
        let event = InsightsEvent.connectionError(
            code: 31600, message: "Busy Everywhere : SIP/2.0 600 Call Rejected", callSid: "CA1", at: now, sipStatus: 600)
        XCTAssertEqual(event.qualifiedName, "connection:error")
        XCTAssertEqual(event.level, .error)
        XCTAssertEqual(event.payload["code"], .int(31600))
        XCTAssertEqual(event.payload["message"], "Busy Everywhere : SIP/2.0 600 Call Rejected")
        XCTAssertEqual(event.payload["sipStatus"], 600)
        XCTAssertNil(InsightsEvent.connectionError(code: 53405, message: "Media connection failed", callSid: nil, at: now)
            .payload["sipStatus"])
    }

    func testReconnectingCarriesTheCause() {
        let event = InsightsEvent.reconnecting(code: 53001, message: "Signaling connection disconnected", callSid: "CA1", at: now)
        XCTAssertEqual(event.qualifiedName, "connection:reconnecting")
        XCTAssertEqual(event.level, .info)
        XCTAssertEqual(event.payload["code"], 53001)
    }

    func testCodecEvent() {
        let event = InsightsEvent.codec("opus/48000/2", parameters: "useinbandfec=1", callSid: "CA1", at: now)
        XCTAssertEqual(event.qualifiedName, "settings:codec")
        XCTAssertEqual(event.payload, ["selected_codec": "opus/48000/2", "codec_params": "useinbandfec=1"])
        XCTAssertEqual(InsightsEvent.codec("PCMU/8000", callSid: nil, at: now).payload, ["selected_codec": "PCMU/8000"])
    }

    func testStateEventsAreDebugExceptFailures() {
        XCTAssertEqual(InsightsEvent.signalingState(.haveRemoteOffer, callSid: nil, at: now).qualifiedName,
                       "signaling-state:have-remote-offers")
        XCTAssertEqual(InsightsEvent.signalingState(.stable, callSid: nil, at: now).level, .debug)
        XCTAssertEqual(InsightsEvent.peerConnectionState(.connecting, callSid: nil, at: now).level, .debug)
        XCTAssertEqual(InsightsEvent.peerConnectionState(.failed, callSid: nil, at: now).level, .error)
        XCTAssertEqual(InsightsEvent.iceConnectionState(.checking, callSid: nil, at: now).qualifiedName,
                       "ice-connection-state:checking")
        XCTAssertEqual(InsightsEvent.iceConnectionState(.failed, callSid: nil, at: now).level, .error)
        XCTAssertEqual(InsightsEvent.iceGatheringState(.complete, callSid: nil, at: now).qualifiedName,
                       "ice-gathering-state:complete")
    }

    func testCandidateEvents() {
        let candidate = InsightsEvent.iceCandidate(localAddress: "127.0.0.1:4000", callSid: nil, at: now)
        XCTAssertEqual(candidate.qualifiedName, "ice-candidate:ice-candidate")
        XCTAssertEqual(candidate.payload["address"], "127.0.0.1:4000")
        let pair = InsightsEvent.selectedCandidatePair(
            localAddress: "127.0.0.1:4000", remoteAddress: "127.0.0.1:5000", callSid: nil, at: now)
        XCTAssertEqual(pair.qualifiedName, "ice-candidate:selected-ice-candidate-pair")
        XCTAssertEqual(pair.payload["remote_candidate"], ["candidate_type": "host", "transport": "udp", "address": "127.0.0.1:5000"])
    }

    func testQualityWarningGroups() {
        XCTAssertEqual(InsightsEvent.qualityWarning(.highRtt, raised: true, callSid: nil, at: now).qualifiedName,
                       "network-quality-warning-raised:high-rtt")
        XCTAssertEqual(InsightsEvent.qualityWarning(.lowMos, raised: false, callSid: nil, at: now).qualifiedName,
                       "network-quality-warning-cleared:low-mos")
        XCTAssertEqual(
            InsightsEvent.qualityWarning(.constantAudioInputLevel, raised: true, callSid: nil, at: now).qualifiedName,
            "audio-level-warning-raised:constant-audio-input-level")
        XCTAssertEqual(
            InsightsEvent.qualityWarning(.constantAudioInputLevel, raised: false, callSid: nil, at: now).qualifiedName,
            "audio-level-warning-cleared:constant-audio-input-level")
    }

    func testDescriptionShowsNameSidAndPayload() {
        let event = InsightsEvent.connectionError(code: 31486, message: "Busy", callSid: "CA9", at: now)
        XCTAssertEqual(event.description, #"connection:error [error] sid=CA9 {"code":31486,"message":"Busy"}"#)
    }

    func testValueJSONRendering() {
        let value: InsightsValue = [
            "s": "a\"b\\c\n\u{01}", "i": -3, "d": 1.5, "b": true, "n": .null, "a": [1, "x"], "inf": .double(.infinity),
        ]
        XCTAssertEqual(
            value.description, #"{"a":[1,"x"],"b":true,"d":1.5,"i":-3,"inf":null,"n":null,"s":"a\"b\\c\n\u0001"}"#)
        XCTAssertEqual(InsightsValue.int(2).doubleValue, 2)
        XCTAssertNil(InsightsValue.bool(true).doubleValue)
        XCTAssertEqual(InsightsValue.string("x").stringValue, "x")
        XCTAssertNil(InsightsValue.null.stringValue)
    }

    func testLevelsAreOrdered() {
        XCTAssertEqual(InsightsEventLevel.allCases.sorted(), [.debug, .info, .warning, .error])
        XCTAssertLessThan(InsightsEventLevel.info, .warning)
    }
}
