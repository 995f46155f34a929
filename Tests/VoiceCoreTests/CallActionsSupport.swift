import VoiceEmbedded
import Dispatch
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceTestAudio
import VoiceMediaTypes

/// Records call messages on its own serial queue.
final class RecordingMessageDelegate: CallMessageDelegate, @unchecked Sendable {
    // @unchecked: the lists are behind locks.
    let queue: DispatchQueue
    let received = Locked<[CallMessage]>([])
    let sent = Locked<[String]>([])
    let failed = Locked<[(CallMessage, VoiceError)]>([])
    let inviteFailed = Locked<[(CallMessage, VoiceError)]>([])
    let inviteSent = Locked<[String]>([])
    let inviteReceived = Locked<[CallMessage]>([])

    init(queue: DispatchQueue) { self.queue = queue }

    func call(_ call: Call, didReceiveMessage message: CallMessage) {
        dispatchPrecondition(condition: .onQueue(queue))
        received.withLock { $0.append(message) }
    }
    func call(_ call: Call, didSendMessage voiceEventSid: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        sent.withLock { $0.append(voiceEventSid) }
    }
    func call(_ call: Call, didFailToSendMessage message: CallMessage, error: VoiceError) {
        dispatchPrecondition(condition: .onQueue(queue))
        failed.withLock { $0.append((message, error)) }
    }
    func callInvite(_ callInvite: CallInvite, didFailToSendMessage message: CallMessage, error: VoiceError) {
        dispatchPrecondition(condition: .onQueue(queue))
        inviteFailed.withLock { $0.append((message, error)) }
    }
    func callInvite(_ callInvite: CallInvite, didSendMessage voiceEventSid: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        inviteSent.withLock { $0.append(voiceEventSid) }
    }
    func callInvite(_ callInvite: CallInvite, didReceiveMessage message: CallMessage) {
        dispatchPrecondition(condition: .onQueue(queue))
        inviteReceived.withLock { $0.append(message) }
    }
}

/// Two clients on loopback with a connected call between them: alice calls bob, bob accepts.
/// Each side captures its own looping signal and records what it plays.
final class ConnectedCallPair {
    let alice: TestVoiceClient
    let bob: TestVoiceClient
    let notifications: ScriptedNotificationDelegate
    let callerDelegate = RecordingCallDelegate()
    let calleeDelegate = RecordingCallDelegate()
    let callerMessages: RecordingMessageDelegate
    let calleeMessages: RecordingMessageDelegate
    private(set) var caller: Call!
    private(set) var callee: Call!

    /// Creates both clients (in `world`, in virtual time; else on loopback in real time);
    /// ``connect(codecs:)`` places the call.
    init(
        aliceSignal: [Int16] = ConnectedCallPair.tone(440), bobSignal: [Int16] = ConnectedCallPair.tone(660), world: VirtualCallWorld? = nil
    ) throws {
        alice = try TestVoiceClient("alice", signal: aliceSignal, world: world)
        bob = try TestVoiceClient("bob", signal: bobSignal, world: world)
        notifications = bob.listen()
        callerMessages = RecordingMessageDelegate(queue: callerDelegate.queue)
        VirtualCallWorld.current?.watch(callerDelegate.queue)
        VirtualCallWorld.current?.watch(calleeDelegate.queue)
        calleeMessages = RecordingMessageDelegate(queue: calleeDelegate.queue)
    }

    /// A loud steady tone, one second, for looping.
    static func tone(_ frequency: Double) -> [Int16] {
        TestSignals.multiTone([(frequency, 8_000)], seconds: 1)
    }

    /// Places the call and waits until both sides are connected.
    func connect(codecs: [AudioCodec] = AudioCodec.defaultPreference, file: StaticString = #filePath, line: UInt = #line) throws {
        let accepted = LockedBox<Call?>(nil)
        let calleeDelegate = self.calleeDelegate, calleeMessages = self.calleeMessages
        notifications.onInvite.withLock {
            $0 = { invite in
                accepted.value = invite.accept(
                    options: AcceptOptions(callInvite: invite) { builder in
                        builder.delegateQueue = calleeDelegate.queue
                        builder.callMessageDelegate = calleeMessages
                        builder.preferredAudioCodecs = codecs
                    },
                    delegate: calleeDelegate)
            }
        }
        caller = alice.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": bob.address]
                builder.delegateQueue = callerDelegate.queue
                builder.callMessageDelegate = callerMessages
                builder.preferredAudioCodecs = codecs
            },
            delegate: callerDelegate)
        XCTAssertEqual(Array(callerDelegate.wait(for: 2).prefix(2)), [.ringing, .connected], file: file, line: line)
        XCTAssertEqual(Array(calleeDelegate.wait(for: 1).prefix(1)), [.connected], file: file, line: line)
        callee = try XCTUnwrap(accepted.value, file: file, line: line)
    }

    /// Ends the call from the caller's side and closes both clients.
    func close() {
        caller?.disconnect()
        alice.client.shutdown()
        bob.client.shutdown()
    }

    /// Runs `body` on the call's event loop with its engine room (nil once the call ended).
    /// In virtual time the test's thread is the loop's: it runs at once.
    static func onCore<T: Sendable>(_ call: Call, _ body: @escaping @Sendable (CallCore?) -> T) throws -> T {
        guard let core = call.core.withLock({ $0 }) else { return body(nil) }
        if core.eventLoop.inEventLoop { return body(core) }
        return try core.eventLoop.submit { body(core) }.wait()
    }

    /// The root-mean-square level of what `device` recorded after a fresh start, measured over
    /// `seconds` of playback (waits for the recording to grow that much).
    static func recordedLevel(of device: BufferAudioDevice, over seconds: Double) -> Double {
        device.clearRecording()
        let wanted = Int(Double(device.format.sampleRate * device.format.channels) * seconds)
        _ = PollingWait.until(timeout: seconds * 4 + 2) { device.recordedSamples.count >= wanted }
        return rms(device.recordedSamples)
    }

    static func rms(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot()
    }
}
