// The README's second example, as it is printed there (DocumentationExamplesTests).
import Dispatch
import Logging
import ServiceLifecycle
import VoiceCore
import VoiceService

final class EchoBot: NotificationDelegate, CallDelegate, Sendable {
    let queue = DispatchQueue(label: "bot")
    let greeting: [Int16]  // 48 kHz mono PCM: a prompt, or text-to-speech output

    init(greeting: [Int16]) { self.greeting = greeting }

    func callInviteReceived(_ callInvite: CallInvite) {
        let device = PCMAudioDevice { heard in
            _ = heard  // the caller's voice: hand it to speech recognition (quickly; never block here)
        }
        device.play(greeting)
        let options = AcceptOptions(callInvite: callInvite) { builder in
            builder.audioDevice = device
            builder.delegateQueue = queue
        }
        _ = callInvite.accept(options: options, delegate: self)
    }
    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}

    func callDidConnect(_ call: Call) {}
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) {}
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {}
}

func runBot(configuration: VoiceClientConfiguration, greeting: [Int16], logger: Logger) async throws {
    let client = try VoiceClient(configuration: configuration)
    let bot = EchoBot(greeting: greeting)
    client.register(notificationDelegate: bot, delegateQueue: bot.queue) { error in
        if let error { logger.error("registration failed: \(error)") }
    }
    let services = ServiceGroup(
        services: [VoiceClientService(client: client)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    try await services.run()
}
