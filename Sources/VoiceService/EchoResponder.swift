import Dispatch
import Foundation
import Synchronization
import VoiceCore
import VoiceMedia

/// Answers every call a client receives and sends back what it hears: the test endpoint a
/// preflight (``VoiceCore/VoiceClient/runPreflight(options:delegate:)``) calls by default, and
/// any SIP server can route a number to. Give it as the client's notification delegate:
///
/// ```swift
/// let echo = EchoResponder()
/// voice.register(accessToken: token, notificationDelegate: echo) { _ in }
/// ```
///
/// Each call gets a device of its own that loops the call's audio back (no voice processing,
/// which would cancel the echo). A call is hung up after ``maximumCallDuration``, so a caller
/// that never hangs up does not hold the service.
public final class EchoResponder: NotificationDelegate, Sendable {
    /// How long after it was heard the audio goes back, beyond the network's round trip.
    public let delay: Duration
    /// The longest an echo call lasts.
    public let maximumCallDuration: Duration
    private let pacing: SoftwareAudioPacing
    private let queue = DispatchQueue(label: "voice.echo")
    private let callDelegate = EchoCallDelegate()

    /// An echo that sends back what it hears after `delay` (0…2 s) more than the network's
    /// round trip, and hangs up after `maximumCallDuration`. `pacing` times its devices (a
    /// test's virtual clock; real time by default).
    public init(delay: Duration = .zero, maximumCallDuration: Duration = .seconds(60), pacing: SoftwareAudioPacing = .realTime) {
        self.delay = delay
        self.maximumCallDuration = maximumCallDuration
        self.pacing = pacing
    }

    /// Calls being echoed now.
    public var activeCalls: Int { callDelegate.calls.withLock { $0.count } }

    public func callInviteReceived(_ callInvite: CallInvite) {
        // On the calls' queue: their callbacks come after the call is listed.
        queue.async { [self] in
            let device = EchoAudioDevice(delay: delay, pacing: pacing)
            let options = AcceptOptions(callInvite: callInvite) {
                $0.audioDevice = device
                $0.audioProcessing = AudioProcessingOptions.none
                $0.delegateQueue = self.queue
            }
            let call = callInvite.accept(options: options, delegate: callDelegate)
            callDelegate.calls.withLock { $0[call.uuid] = call }
            queue.asyncAfter(deadline: .now() + maximumCallDuration / .seconds(1)) { [weak call] in call?.disconnect() }
        }
    }

    public func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}
}

/// The echo calls' delegate: keeps the calls, and forgets each when it ends.
private final class EchoCallDelegate: CallDelegate, Sendable {
    let calls = Mutex<[UUID: Call]>([:])

    func callDidConnect(_ call: Call) {}

    func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
        _ = calls.withLock { $0.removeValue(forKey: call.uuid) }
    }

    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {
        _ = calls.withLock { $0.removeValue(forKey: call.uuid) }
    }
}
