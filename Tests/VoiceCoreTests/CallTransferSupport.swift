import Foundation
import VoiceEmbedded
import VoiceSupport
import VoiceTestAudio
import XCTest

@testable import VoiceCore

/// A call delegate for transfer tests: records the call's end, transfer progress and the call
/// that replaced it, and accepts a transfer request (placing the new call with `newCallDelegate`)
/// when given one, else refuses it as the default does.
final class TransferRecordingDelegate: CallDelegate, @unchecked Sendable {
    // @unchecked: the lists are behind locks.
    let queue = DispatchQueue(label: "test.transfer.delegate")
    private let newCallDelegate: TransferRecordingDelegate?
    private let seen = Locked<[String]>([])
    private let progressSeen = Locked<[CallTransferProgress]>([])
    let requests = Locked<[CallTransferRequest]>([])
    let transferredCall = Locked<Call?>(nil)
    let replacement = Locked<Call?>(nil)

    init(acceptingWith newCallDelegate: TransferRecordingDelegate? = nil) {
        self.newCallDelegate = newCallDelegate
        VirtualCallWorld.current?.watch(queue)
    }

    var callbacks: [String] { seen.withLock { $0 } }
    var progress: [CallTransferProgress] { progressSeen.withLock { $0 } }

    func callDidConnect(_ call: Call) { seen.withLock { $0.append("connected") } }
    func callDidStartRinging(_ call: Call) { seen.withLock { $0.append("ringing") } }
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { seen.withLock { $0.append("failed(\(error.code.rawValue))") } }
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {
        seen.withLock { $0.append("disconnected(\(error.map { "\($0.code.rawValue)" } ?? "nil"))") }
    }
    func call(_ call: Call, transferDidProgress progress: CallTransferProgress) { progressSeen.withLock { $0.append(progress) } }
    func call(_ call: Call, wasReplacedBy newCall: Call) {
        seen.withLock { $0.append("replaced") }
        replacement.withLock { $0 = newCall }
    }
    func call(_ call: Call, didReceiveTransferRequest request: CallTransferRequest) {
        requests.withLock { $0.append(request) }
        guard let newCallDelegate else { return request.reject() }
        let options = ConnectOptions { $0.delegateQueue = newCallDelegate.queue }
        let placed = request.accept(options: options, delegate: newCallDelegate)
        transferredCall.withLock { $0 = placed }
    }

    /// Waits (in the test's world's time) until `condition` holds for the callbacks.
    @discardableResult
    func wait(timeout: TimeInterval = 10, until condition: @escaping @Sendable ([String]) -> Bool) -> Bool {
        PollingWait.until(timeout: timeout) { condition(self.callbacks) }
    }

    func waitForProgress(_ progress: CallTransferProgress, timeout: TimeInterval = 10) -> Bool {
        PollingWait.until(timeout: timeout) { self.progress.contains(progress) }
    }
}

extension TestVoiceClient {
    /// Places a call with a transfer-recording delegate.
    func connect(to destination: String, transferDelegate delegate: TransferRecordingDelegate) -> Call {
        client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token(client.configuration.identity)) { builder in
                builder.params = ["To": destination]
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
    }

    /// The amplitude of `frequency` in the next half second the client's device plays.
    func hears(_ frequency: Double, timeout: TimeInterval = 5) -> Double {
        device.clearRecording()
        let device = self.device
        _ = PollingWait.until(timeout: timeout) { device.recordedSamples.count >= 24_000 }
        return ToneAmplitude.of(frequency, in: device.recordedSamples.prefix(24_000))
    }
}

extension ScriptedNotificationDelegate {
    /// Accepts every invite with a transfer-recording delegate.
    func acceptEach(withTransferDelegate delegate: TransferRecordingDelegate) -> LockedBox<Call?> {
        let accepted = LockedBox<Call?>(nil)
        onInvite.withLock {
            $0 = { invite in
                accepted.value = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = delegate.queue }, delegate: delegate)
            }
        }
        return accepted
    }
}
