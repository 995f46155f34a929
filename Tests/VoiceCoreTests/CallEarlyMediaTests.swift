import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Early media (183 Session Progress with SDP): the caller hears what the callee's side plays
/// before the answer (a ringback, an announcement) instead of its own ringback tone, sends
/// only silence until the answer, and keeps the same stream once answered. Against a scripted
/// callee that runs real SRTP media on its own device, in virtual time (``VirtualCallWorld``).
final class CallEarlyMediaTests: VirtualTimeTestCase {

    private struct Setup {
        let alice: TestVoiceClient
        let peerDevice: BufferAudioDevice
        let peer: SIPScriptedPeer
        let delegate = RecordingCallDelegate()
        let call: Call

        /// Alice says 1 kHz, the callee's side plays 660 Hz; alice's ringback tone is on.
        init(world: VirtualCallWorld) throws {
            alice = try TestVoiceClient("alice", signal: ConnectedCallPair.tone(1_000), world: world) {
                $0.progressTones = .northAmerica
                // The scripted peer answers SDES offers (a plain SIP peer's): one INVITE, as the test counts.
                $0.mediaSecurity = .sdes
            }
            peerDevice = BufferAudioDevice(captureSamples: ConnectedCallPair.tone(660), loop: true, pacing: world.pacing)
            peer = try SIPScriptedPeer(
                host: world.makeHost(), port: 5060, network: world.sipNetwork.transportFactory, mediaEngine: world.engine,
                earlyMedia: true, audioDevice: peerDevice)
            call = alice.connect(to: peer.uri.description, delegate: delegate)
        }

        func shutdown() {
            peer.shutdown()
            alice.client.shutdown()
        }
    }

    /// The amplitudes of `frequencies` in the next half second `device` plays (in what it
    /// played within `timeout`: a device no call uses any more plays nothing).
    private func heard(_ frequencies: [Double], on device: BufferAudioDevice, timeout: TimeInterval = 5) -> [Double] {
        device.clearRecording()
        _ = PollingWait.until(timeout: timeout) { device.recordedSamples.count >= 24_000 }
        let window = device.recordedSamples.prefix(24_000)
        return frequencies.map { ToneAmplitude.of($0, in: window) }
    }

    func testEarlyMediaPlaysBeforeTheAnswerAndTheSameStreamCarriesTheAnsweredCall() throws {
        let setup = try Setup(world: world)
        defer { setup.shutdown() }
        XCTAssertEqual(setup.delegate.wait(for: 1), [.ringing])
        _ = PollingWait.until(timeout: 5) { (setup.peer.mediaStats?.packetsReceived ?? 0) > 25 }

        // Ringing: alice hears the callee's side, not her own ringback.
        let early = heard([660, 440, 480], on: setup.alice.device)
        XCTAssertGreaterThan(early[0], 2_000, "the early media: \(early)")
        XCTAssertLessThan(max(early[1], early[2]), 200, "no local ringback over early media: \(early)")
        XCTAssertEqual(setup.call.state, .ringing)
        // Alice sends (the path opens) but only silence: her 1 kHz does not leave before the answer.
        let peerEarly = try XCTUnwrap(setup.peer.mediaStats)
        XCTAssertGreaterThan(peerEarly.packetsReceived, 25, "alice sends during early media")
        let leaked = heard([1_000], on: setup.peerDevice)
        XCTAssertLessThan(leaked[0], 200, "nothing alice says is sent before the answer: \(leaked)")

        // Answered: the same stream (the same SSRC reaches the callee) now carries alice's voice.
        setup.peer.answer()
        XCTAssertEqual(setup.delegate.wait(for: 2), [.ringing, .connected])
        let answered = heard([660], on: setup.alice.device)
        XCTAssertGreaterThan(answered[0], 2_000, "the callee still heard after the answer: \(answered)")
        let spoken = heard([1_000], on: setup.peerDevice)
        XCTAssertGreaterThan(spoken[0], 2_000, "alice is heard once answered: \(spoken)")
        let peerAnswered = try XCTUnwrap(setup.peer.mediaStats)
        XCTAssertEqual(peerAnswered.remoteSSRC, peerEarly.remoteSSRC, "one stream from the 183 on")
        XCTAssertGreaterThan(peerAnswered.packetsReceived, peerEarly.packetsReceived)
        XCTAssertEqual(setup.call.details.codec, "opus")

        setup.call.disconnect()
        XCTAssertEqual(setup.delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertEqual(setup.call.details.endCause, .local)
    }

    func testAnAnnouncementThenARejectionFailsTheCallWithTheRejectionsCode() throws {
        let setup = try Setup(world: world)
        defer { setup.shutdown() }
        XCTAssertEqual(setup.delegate.wait(for: 1), [.ringing])
        let early = heard([660], on: setup.alice.device)
        XCTAssertGreaterThan(early[0], 2_000, "the announcement: \(early)")

        setup.peer.reject(statusCode: 486)
        let callbacks = setup.delegate.waitForEnd()
        XCTAssertEqual(callbacks.count, 2, "\(callbacks)")
        guard case .failed(let code)? = callbacks.last else { return XCTFail("\(callbacks)") }
        XCTAssertEqual(code, .busyHere)
        XCTAssertEqual(setup.call.details.endCause, .denied)
        // The early stream has stopped: alice's device plays nothing of it any more.
        let after = heard([660], on: setup.alice.device, timeout: 1)
        XCTAssertLessThan(after[0], 200, "the early media stopped with the call: \(after)")
    }

    func testHangingUpDuringEarlyMediaCancelsTheCall() throws {
        let setup = try Setup(world: world)
        defer { setup.shutdown() }
        XCTAssertEqual(setup.delegate.wait(for: 1), [.ringing])
        _ = PollingWait.until(timeout: 5) { (setup.peer.mediaStats?.packetsReceived ?? 0) > 10 }

        setup.call.disconnect()
        XCTAssertEqual(setup.delegate.waitForEnd(), [.ringing, .disconnected(nil)])
        XCTAssertEqual(setup.call.details.endCause, .canceled)
        XCTAssertTrue(PollingWait.until(timeout: 5) { setup.peer.isTerminated }, "the callee saw the CANCEL")
        // Both sides take 100rel: the 183 with SDP came reliably and was acknowledged (RFC 3262).
        XCTAssertEqual(setup.peer.requests.map(\.method).filter { $0 != .ack }, [.invite, .prack, .cancel])
        let after = heard([660], on: setup.alice.device, timeout: 1)
        XCTAssertLessThan(after[0], 200, "the early media stopped with the call: \(after)")
    }
}
