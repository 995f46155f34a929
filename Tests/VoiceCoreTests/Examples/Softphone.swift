// The README's first example, as it is printed there: DocumentationExamplesTests checks that
// the README's block is this file's text, and runs it on loopback.
import Dispatch
import VoiceCore

final class Softphone: CallDelegate, NotificationDelegate, @unchecked Sendable {
    let client: VoiceClient
    let queue = DispatchQueue(label: "softphone")
    private(set) var calls: [Call] = []  // touched on `queue` only

    init(server: String, user: String, password: String, audioDevice: any AudioDevice) throws {
        var configuration = VoiceClientConfiguration(identity: user, domain: server)  // UDP; `transport: .tls` for TLS
        configuration.username = user
        configuration.password = password
        client = try VoiceClient(configuration: configuration, audioDevice: audioDevice)
        client.register(notificationDelegate: self, delegateQueue: queue) { error in
            if let error { print("not registered: \(error.code) \(error)") }
        }
    }

    /// `number` is a user (`bob`), a phone number (`+14155550101`) or a SIP address.
    func dial(_ number: String) {
        let options = ConnectOptions { builder in
            builder.params = ["To": number, "ticket": "42"]  // other params reach the callee
            builder.delegateQueue = queue
        }
        let call = client.connect(options: options, delegate: self)
        queue.async { self.calls.append(call) }
    }

    func callInviteReceived(_ callInvite: CallInvite) {
        print("call from \(callInvite.from ?? "?") \(callInvite.customParameters)")
        calls.append(callInvite.accept(options: AcceptOptions(callInvite: callInvite) { $0.delegateQueue = queue }, delegate: self))
    }
    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}

    func callDidStartRinging(_ call: Call) { print("ringing") }
    func callDidConnect(_ call: Call) { call.sendDigits("1234#") }
    func call(_ call: Call, didReceiveDigit digit: CallDigit) { print("pressed \(digit.digit)") }
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { print("failed: \(error.code)") }
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) { calls.removeAll { $0 === call } }
}
