import ArgumentParser
import Dispatch
import Foundation
import Logging
import VoiceCore
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent
import VoiceTestAudio
import VoiceSupport

/// Two clients on loopback place a real SIP + SRTP + Opus call: alice plays a speech-like
/// signal, bob answers, plays another and records; both sides' states, a per-second line and a
/// summary are printed. Exits 0 when audio arrived recognisably both ways.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A real SIP + SRTP + Opus call between two clients on loopback.")

    @Option(help: "Seconds the call lasts once connected.") var seconds = 5
    @Option(help: "Signaling transport: udp, tcp or ws (SIP over WebSocket: bob listens, alice connects).") var transport = "udp"

    func run() throws {
        var quiet = Logger(label: "voicecall")
        quiet.logLevel = .warning
        let speech = TestSignals.speechLike(seconds: Double(seconds + 2), seed: 3)
        // Another voice, not tones: a periodic signal would make the measured delay ambiguous.
        let answer = TestSignals.speechLike(seconds: Double(seconds + 2), amplitude: 9_000, seed: 11)
        // What a bot does: queue PCM to send, take what it hears from `onAudio`.
        let heardByAlice = PCMRecording(seconds: seconds + 4), heardByBob = PCMRecording(seconds: seconds + 4)
        let aliceDevice = PCMAudioDevice(onAudio: heardByAlice.append)
        let bobDevice = PCMAudioDevice(onAudio: heardByBob.append)
        aliceDevice.play(speech)
        bobDevice.play(answer)
        guard let transport = SIPTransportProtocol(token: transport), !transport.isSecure else {
            throw ValidationError("--transport must be udp, tcp or ws (TLS and wss need a certificate)")
        }

        var bobConfiguration = VoiceClientConfiguration(
            identity: "bob", domain: "127.0.0.1", transport: transport, registers: false,
            logger: quiet)
        bobConfiguration.acceptsWebSocketConnections = transport.isWebSocket
        let bob = try VoiceClient(configuration: bobConfiguration, audioDevice: bobDevice)
        let alice = try VoiceClient(
            configuration: VoiceClientConfiguration(
                identity: "alice", domain: "127.0.0.1", transport: transport, registers: false,
                logger: quiet),
            audioDevice: aliceDevice)
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        print("alice \(alice.localEndpoint) calls bob \(bob.localEndpoint): SIP over \(transport), SRTP, Opus 20 ms")

        let bobDelegate = PrintingCallDelegate(name: "bob  ")
        let answerer = AutoAnswer(callDelegate: bobDelegate)
        let registered = DispatchSemaphore(value: 0)
        bob.register(notificationDelegate: answerer, delegateQueue: bobDelegate.queue) { _ in registered.signal() }
        _ = registered.wait(timeout: .now() + 5)

        let aliceDelegate = PrintingCallDelegate(name: "alice")
        let started = Date()
        let call = alice.connect(
            options: ConnectOptions { builder in
                builder.params = ["To": "sip:bob@127.0.0.1:\(bob.localEndpoint.port)", "customer": "42"]
                builder.delegateQueue = aliceDelegate.queue
            },
            delegate: aliceDelegate)
        guard aliceDelegate.waitForConnected(timeout: 10) else {
            print("the call did not connect")
            throw ExitCode(1)
        }
        let setup = Date().timeIntervalSince(started)
        for second in 1...seconds {
            Thread.sleep(forTimeInterval: 1)
            print(CallStatsLine.line("alice", Self.stats(of: call), second: second))
            if let bobCall = answerer.call { print(CallStatsLine.line("bob  ", Self.stats(of: bobCall), second: second)) }
        }
        let aliceStats = Self.stats(of: call)
        let bobStats = answerer.call.flatMap { Self.stats(of: $0) }
        call.disconnect()
        _ = aliceDelegate.waitForEnd(timeout: 5)
        _ = bobDelegate.waitForEnd(timeout: 5)

        let atBob = SpectralSimilarity(played: speech, in: heardByBob.samples)
        let atAlice = SpectralSimilarity(played: answer, in: heardByAlice.samples)
        print("")
        print(String(format: "summary: call %@ set up in %.0f ms; custom parameters at bob: %@", call.sid, setup * 1000,
                     answerer.invite?.customParameters.description ?? "-"))
        print("alice sent \(aliceStats?.localAudioTrack?.packetsSent ?? 0) packets, bob sent \(bobStats?.localAudioTrack?.packetsSent ?? 0)")
        if let transport = aliceStats?.transport, let dtls = transport.dtlsState {
            print("media: ICE \(transport.selectedCandidatePair.map { "\($0)" } ?? "-"), DTLS \(dtls), SRTP \(transport.srtpCipher.map { "\($0)" } ?? "-")")
        }
        print(Self.verdict("alice → bob", atBob, mos: bobStats?.remoteAudioTrack?.mos))
        print(Self.verdict("bob → alice", atAlice, mos: aliceStats?.remoteAudioTrack?.mos))
        if atBob.score < Self.passingMatch || atAlice.score < Self.passingMatch { throw ExitCode(1) }
    }

    /// The spectral match (``SpectralSimilarity``) below which a direction counts as broken: an
    /// intact Opus call on loopback scores 0.9–0.98, another voice about 0.6.
    static let passingMatch = 0.8

    /// One direction's result as a person reads it: how much of what was sent was heard (the
    /// spectral match), how late, and the call's own quality estimate (the E-model MOS from
    /// loss, jitter and delay).
    static func verdict(_ direction: String, _ match: SpectralSimilarity, mos: Double?) -> String {
        let latency = match.latencyMilliseconds().map { "latency \($0) ms" } ?? "latency unknown"
        let quality = mos.map { String(format: ", MOS %.1f", $0) } ?? ""
        let judged = match.score >= passingMatch ? "heard" : "NOT HEARD"
        return "\(direction): \(judged): \(match.percent) % spectral match, \(latency)\(quality)"
    }

    private static func stats(of call: Call) -> CallStatsReport? {
        let done = DispatchSemaphore(value: 0)
        let box = StatsBox()
        call.getStats { report in
            box.report = report
            done.signal()
        }
        _ = done.wait(timeout: .now() + 2)
        return box.report
    }
}

private final class StatsBox: @unchecked Sendable {
    // @unchecked: written before the semaphore is signalled, read after.
    var report: CallStatsReport?
}

/// Accepts every invite with the given call delegate (on its queue).
final class AutoAnswer: NotificationDelegate, Sendable {
    let callDelegate: PrintingCallDelegate
    private let answered = Locked<(invite: CallInvite?, call: Call?)>((nil, nil))

    init(callDelegate: PrintingCallDelegate) { self.callDelegate = callDelegate }

    /// The accepted call, from any thread.
    var call: Call? { answered.withLock { $0.call } }
    /// The invite it came from, from any thread.
    var invite: CallInvite? { answered.withLock { $0.invite } }

    func callInviteReceived(_ callInvite: CallInvite) {
        print("bob  : invite from \(callInvite.from ?? "?") (\(callInvite.callSid)), answering".escapingControlCharacters)
        let call = callInvite.accept(
            options: AcceptOptions(callInvite: callInvite) { $0.delegateQueue = self.callDelegate.queue },
            delegate: callDelegate)
        answered.withLock { $0 = (callInvite, call) }
    }

    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {
        print("bob  : invite \(cancelledCallInvite.callSid) cancelled: \(error)".escapingControlCharacters)
    }
}
