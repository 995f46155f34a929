import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport

// Case 1 with baresip as the far party: a SIP phone we did not write must follow our move.
extension NetworkChangeCall {
    /// The mover calls baresip (in the provider's namespace on 10.9.0.1:5060, SDES-SRTP
    /// required, Opus, auto-answer, playing a tone file and recording what it hears) and is
    /// renumbered ``changeAfter`` seconds into the call, as in ``Change/renumber``. The mover
    /// hangs up after ``callSeconds``. Over UDP.
    package func runWithBaresip() throws -> Result {
        let (caller, provider) = try makeTopology()
        defer {
            caller.delete()
            provider.delete()
        }
        let (moverPlays, farTone) = try NamespaceScenario.writeTones(to: directory, names: ("mover", "far"))
        // aufile plays its file once, and wants 48 kHz stereo: long enough for the whole call.
        let farPlays = Array([[Int16]](repeating: farTone, count: (callSeconds + 10) / 2).joined())
        try BaresipWAVFile.write(farPlays, to: directory + "/far-plays.wav")
        let recordings = directory + "/baresip"
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        let config = """
            poll_method\t\tepoll
            net_interface\t\t10.9.0.1
            sip_listen\t\t10.9.0.1:5060
            audio_source\t\taufile,\(directory)/far-plays.wav
            audio_player\t\tnone,none
            audio_alert\t\tnone,none
            rtp_ports\t\t30000-30100
            rtp_timeout\t\t0
            module_path\t\t/usr/lib/baresip/modules
            module\t\t\tg711.so
            module\t\t\topus.so
            module\t\t\taufile.so
            module\t\t\tsrtp.so
            module\t\t\tsndfile.so
            module_app\t\taccount.so
            snd_path\t\t\(recordings)

            """
        let account = "<sip:bob@10.9.0.1:5060>;regint=0;answermode=auto;mediaenc=srtp-mand;audio_codecs=opus/48000/2\n"
        try config.write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        try account.write(toFile: directory + "/accounts", atomically: true, encoding: .utf8)
        let baresip = try SIPPeerProcess(
            name: "baresip", executable: NetworkNamespace.ipPath, arguments: ["netns", "exec", provider.name, "baresip", "-f", directory],
            workingDirectory: directory, logPath: directory + "/baresip.log")
        defer { baresip.stop() }
        guard PollingWait.until(timeout: 10, { baresip.log.contains("baresip is ready") }) else {
            throw NetworkNamespaceError("baresip did not start:\n\(baresip.logTail())")
        }
        let mover = try SIPPeerProcess(
            name: "mover", executable: "ip",
            arguments: ["netns", "exec", caller.name, voicecall, "call", "bob", "--identity", "alice", "--domain", "10.9.0.1",
                        "--listen", "auto", "--duration", "\(callSeconds)", "--play", directory + "/mover-plays.wav",
                        "--record", directory + "/mover-heard.wav", "--transport", "udp", "--allow-clear-text-keys"],
            workingDirectory: directory, logPath: directory + "/mover.log")
        defer { mover.stop() }
        guard PollingWait.until(timeout: 20, every: 0.002, { mover.log.contains("call: connected") }) else {
            throw NetworkNamespaceError("the call did not connect:\n\(mover.logTail())\n\(baresip.logTail())")
        }
        let connectedSeen = Date()
        Thread.sleep(forTimeInterval: changeAfter)  // audio before the change: a window, not synchronisation
        let changedAt = Date()
        for (_, commands) in Change.renumber.steps { try caller.batch(commands) }
        _ = PollingWait.until(timeout: Double(callSeconds) + 20) { !mover.isRunning }
        Thread.sleep(forTimeInterval: 0.5)  // baresip finishes its recording after the BYE
        let log = mover.log
        var reconnect: Int?
        if let connected = Self.time(of: "call: connected", in: log), let back = Self.time(of: "call: reconnected", in: log) {
            reconnect = Int(((back - connected - changedAt.timeIntervalSince(connectedSeen)) * 1000).rounded())
        }
        let (moverHeard, moverGap) = NamespaceScenario.recording("mover", in: directory)
        let decoded = (try? FileManager.default.contentsOfDirectory(atPath: recordings))?.first { $0.hasSuffix("-dec.wav") }
        let farHeard = decoded.flatMap { try? BaresipWAVFile.read(recordings + "/" + $0).channel(0) } ?? []
        return Result(
            moverCallbacks: Self.callbacks(in: log), moverLog: log, farLog: baresip.log, moverExit: mover.exitStatus,
            farExit: baresip.isRunning ? 0 : baresip.exitStatus, reconnectMilliseconds: reconnect,
            gapMilliseconds: ["mover": moverGap, "far": AudioGap.longest(in: farHeard, after: 48_000)],
            heard: ["mover": moverHeard, "far": farHeard], played: ["mover": farTone, "far": moverPlays])
    }
}
