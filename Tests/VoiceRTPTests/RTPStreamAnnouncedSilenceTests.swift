import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceRTP

/// A conference leg does not decode the frames its peer announced (RFC 6464) below the mixer's
/// silence level, decodes everything near a frame that was not, and stops believing a peer
/// whose announced silence turns out to be sound.
final class RTPStreamAnnouncedSilenceTests: XCTestCase {
    /// A sends `frames` 20 ms frames (`loud`: the ramp, else zeros) to B, which plays one per
    /// 20 ms; `announce` rewrites the level A's packets carry. Returns B's played samples.
    private func exchange(
        _ pair: inout RTPStreamPair, frames: Int, loud: Bool, announce: UInt8? = nil
    ) throws -> [Int16] {
        pair.b.output.played.removeAll()
        for _ in 0..<frames {
            for step in 0..<4 {
                pair.now = pair.now + .milliseconds(5)
                if step == 0 {
                    var frame = (0..<960).map { loud ? RTPStreamPair.ramp((pair.a.framesSent * 960 + $0) / 6) : 0 }
                    pair.a.framesSent += 1
                    frame.withUnsafeMutableBufferPointer { pair.a.stream.send(frame: $0, at: pair.now, output: &pair.a.output) }
                    let sent = pair.a.output.sent
                    pair.a.output.sent.removeAll()
                    for datagram in sent where datagram.component == .rtp {
                        var bytes = datagram.bytes
                        if let announce {
                            var packet = try RTPPacket(parsing: bytes)
                            packet.header.extension = try .oneByte([.init(id: 5, data: [announce])])
                            bytes = try packet.serialized()
                        }
                        pair.inject(bytes, from: RTPStreamPair.addressA, toB: true)
                    }
                    pair.b.stream.playout(at: pair.now, room: 48 * 120, output: &pair.b.output)
                }
                pair.b.stream.tick(at: pair.now, output: &pair.b.output)
                pair.b.output.sent.removeAll()
            }
        }
        return pair.b.output.played
    }

    private func conferenceLeg() -> RTPStreamPair {
        var pair = RTPStreamPair(protectionKeys: nil) { $0.audioLevelExtensionID = 5 }
        pair.b.stream.receivedAudioDecoding = .skipsAnnouncedSilence(dBov: 61)
        return pair
    }

    func testAnnouncedSilenceIsNotDecodedAndTheSpeechAfterItPlaysWhole() throws {
        var pair = conferenceLeg()
        _ = try exchange(&pair, frames: 150, loud: false)  // 3 s of announced silence (127)
        let quiet = pair.b.stream.statistics(at: pair.now)
        // Decoded for the horizon (2 × 400 ms + a frame) after the start, then skipped but one in 25.
        let horizonFrames = Int(RTPStream.announcedSilenceHorizon(for: pair.b.stream.configuration).nanoseconds / 20_000_000)
        XCTAssertGreaterThan(quiet.framesNotDecoded, UInt64(150 - horizonFrames - 15) * 24 / 25)
        XCTAssertGreaterThan(quiet.announcedSilenceVerified, 2)
        XCTAssertFalse(quiet.announcedLevelsDistrusted)

        let played = try exchange(&pair, frames: 50, loud: true)
        // The same exchange on a leg that decodes everything plays the very same samples.
        var control = RTPStreamPair(protectionKeys: nil) { $0.audioLevelExtensionID = 5 }
        _ = try exchange(&control, frames: 150, loud: false)
        let reference = try exchange(&control, frames: 50, loud: true)
        XCTAssertEqual(played, reference, "what plays is what decoding everything plays")
        XCTAssertGreaterThanOrEqual(RTPStreamPair.intactFrames(in: played).intact, 40, "the speech after the silence")
        let loud = pair.b.stream.statistics(at: pair.now)
        XCTAssertLessThanOrEqual(loud.framesNotDecoded, quiet.framesNotDecoded + 3, "nothing announced loud is skipped")

        // Back to silence: the frames within the horizon of the last speech are decoded.
        let before = pair.b.stream.statistics(at: pair.now).framesNotDecoded
        _ = try exchange(&pair, frames: horizonFrames - 5, loud: false)
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).framesNotDecoded, before)
    }

    func testAPeerAnnouncingSilenceOverSoundIsCaughtAndHeard() throws {
        var pair = conferenceLeg()
        // Sound, announced as silence: some frames go undecoded until a check decodes one.
        _ = try exchange(&pair, frames: 80, loud: true, announce: 127)
        let caught = pair.b.stream.statistics(at: pair.now)
        XCTAssertTrue(caught.announcedLevelsDistrusted)
        XCTAssertLessThan(caught.framesNotDecoded, UInt64(AnnouncedSilence.verifyEvery), "caught at the first check")
        let played = try exchange(&pair, frames: 50, loud: true, announce: 127)
        XCTAssertEqual(RTPStreamPair.intactFrames(in: played).intact, 50, "from then on every frame is decoded")
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).framesNotDecoded, caught.framesNotDecoded)
    }

    func testWithoutLevelsOrOutsideAConferenceEverythingIsDecoded() throws {
        var plain = RTPStreamPair(protectionKeys: nil)  // no level extension negotiated
        plain.b.stream.receivedAudioDecoding = .skipsAnnouncedSilence(dBov: 61)
        _ = try exchange(&plain, frames: 100, loud: false)
        XCTAssertEqual(plain.b.stream.statistics(at: plain.now).framesNotDecoded, 0, "no level: never skipped")

        var call = RTPStreamPair(protectionKeys: nil) { $0.audioLevelExtensionID = 5 }
        _ = try exchange(&call, frames: 100, loud: false)
        XCTAssertEqual(call.b.stream.statistics(at: call.now).framesNotDecoded, 0, "a call's stream decodes all")
    }

    /// The decision alone, on its clock.
    func testTheDecisionFollowsTheLastLoudArrivalAndTheChecks() {
        let horizon = MediaTime.milliseconds(820)
        var s = AnnouncedSilence(horizon: horizon)
        let t0 = MediaTime.seconds(100)
        XCTAssertEqual(s.decision(at: t0), .decode, "nothing heard yet")
        s.received(level: 20, threshold: 61, at: t0)
        XCTAssertEqual(s.decision(at: t0 + .milliseconds(500)), .decode, "within the horizon of a loud packet")
        s.received(level: 127, threshold: 61, at: t0 + .milliseconds(600))
        XCTAssertEqual(s.decision(at: t0 + .milliseconds(800)), .decode)
        var decisions: [AnnouncedSilence.Decision] = []
        for i in 0..<50 { decisions.append(s.decision(at: t0 + .milliseconds(900 + 20 * Int64(i)))) }
        XCTAssertEqual(decisions.filter { $0 == .verify }.count, 2)
        XCTAssertEqual(decisions.filter { $0 == .skip }.count, 48)
        XCTAssertEqual(decisions[24], .verify, "every 25th is checked")
        s.received(level: nil, threshold: 61, at: t0 + .seconds(2))
        XCTAssertEqual(s.decision(at: t0 + .seconds(2) + .milliseconds(100)), .decode, "a packet without a level counts as loud")
        // A check that hears −45 dBFS where silence was announced ends the trust for good.
        s.checked(levelDBFS: -55, threshold: 61)
        XCTAssertFalse(s.isDistrusted, "within the tolerance")
        s.checked(levelDBFS: -45, threshold: 61)
        XCTAssertTrue(s.isDistrusted)
        XCTAssertEqual(s.decision(at: t0 + .seconds(10)), .decode)
    }
}
