import ArgumentParser
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceTestAudio

/// Two streams on loopback exchange SRTP-encrypted Opus audio through in-memory devices; prints
/// live figures and how closely each side's recording matches what the other side sent.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Runs an encrypted Opus call between two streams on loopback.")

    @Option(help: "Seconds of audio each side sends.") var seconds = 5
    @Option(help: "Random packet loss applied in user space, percent.") var loss = 0.0
    @Option(help: "Extra random delay per packet, ms (jitter).") var jitter = 0

    func run() throws {
        let signalA = TestSignals.speechLike(seconds: Double(seconds), seed: 1)
        let signalB = TestSignals.multiTone([(440, 4_000), (1_250, 3_000), (3_100, 2_000)], seconds: Double(seconds))
        let impairment = NetworkImpairment(lossRate: loss / 100, jitter: .milliseconds(Int64(jitter)))
        let impaired = loss > 0 || jitter > 0
        let call = try LoopbackCall(
            signalA: signalA, signalB: signalB,
            impairmentAToB: impaired ? impairment : nil, impairmentBToA: impaired ? impairment : nil,
            rtcpInterval: .seconds(1))
        print(
            "A \(call.a.localAddress) <-> B \(call.b.localAddress), Opus 20 ms, SRTP AES_CM_128_HMAC_SHA1_80"
                + (impaired ? ", impaired: \(loss)% loss, \(jitter) ms jitter" : ""))
        let started = Date()
        try call.start()
        for second in 1...(seconds + 1) {
            Thread.sleep(forTimeInterval: 1)
            for (name, s) in [("A", call.a.stats), ("B", call.b.stats)] {
                print(
                    String(
                        format: "%2ds %@: sent %4d recv %4d lost %3d  in %5d out %5d  jitter %5.1f ms  rtt %@  jb %3.0f ms  MOS %.2f",
                        second, name, s.packetsSent, s.packetsReceived, s.packetsLost, s.inputLevel, s.outputLevel,
                        s.jitterMs, s.rttMs.map { String(format: "%5.1f ms", $0) } ?? "   -    ",
                        s.jitterBuffer.currentDelay.milliseconds, s.mos))
            }
        }
        let a = call.a.stats, b = call.b.stats
        call.stop()
        let elapsed = Date().timeIntervalSince(started)
        let atB = SpectralSimilarity(played: signalA, in: call.deviceB.recordedSamples)
        let atA = SpectralSimilarity(played: signalB, in: call.deviceA.recordedSamples)
        print("")
        print(
            String(
                format: "summary: %.1f s, A sent %d packets (%d bytes), B sent %d packets (%d bytes); SRTP rejects %d/%d",
                elapsed, a.packetsSent, a.bytesSent, b.packetsSent, b.bytesSent, a.srtpAuthFailures, b.srtpAuthFailures))
        for (direction, match) in [("A→B", atB), ("B→A", atA)] {
            let latency = match.latencyMilliseconds().map { "\($0) ms" } ?? "unknown"
            print("\(direction): \(match.percent) % spectral match, latency \(latency)")
        }
        if atB.score < 0.5 || atA.score < 0.5 {
            throw ExitCode(1)
        }
    }
}
