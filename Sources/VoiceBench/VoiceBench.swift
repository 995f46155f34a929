import ArgumentParser
import Foundation
import VoiceCore
import VoiceMedia
import VoiceMediaTypes
import VoiceTestKit

/// The media benchmark and loopback demo.
@main
struct VoiceBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice-bench",
        abstract: "Measures the media engine, or runs a loopback call demo.",
        subcommands: [
            Measure.self, Quality.self, Jitter.self, TimeStretchOffline.self, Loop.self, Setup.self, Failover.self, DTLSHandshake.self, Rate.self,
            SideBySide.self, Soak.self, NetChange.self, NATTURN.self, WebRTCPESQ.self, WebSocketBench.self, AudioProcessingBench.self, DeviceLatencyBench.self, ConferenceBench.self, ConferenceLoad.self, Demo.self,
        ],
        defaultSubcommand: Measure.self)
}

struct Measure: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure", abstract: "Prints CPU ratio, real-time stream capacity, memory per stream and PESQ-WB figures.")

    @Option(help: "Opus complexity for the CPU, capacity and memory figures (default: the SDK's default).") var complexity: Int?
    @Option(help: "Opus bitrate in bits/s for those figures (default: the SDK's default).") var bitrate: Int?
    @Option(help: "Largest number of stream endpoints tried for max_realtime_streams.") var maxStreams = 600
    @Option(help: "Step between stream counts tried.") var step = 50
    @Option(help: "Step of the search below the first count with late frames.") var fineStep = 10
    @Option(help: "Seconds measured per stream count.") var seconds = 5.0
    @Option(help: "Capacity ramps run; the figures are the median ramp's.") var ramps = 3
    @Option(help: "Opus complexity for the PESQ figures (default: the highQuality preset's).") var pesqComplexity: Int?
    @Option(help: "Opus bitrate for the PESQ figures (default: the highQuality preset's).") var pesqBitrate: Int?
    @Option(help: "Packet-loss percentages for the PESQ figures.") var pesqLoss: [Int] = [0, 5, 10]
    @Flag(help: "Skip the PESQ figures (they need espeak-ng and the pesq Python package).") var skipPesq = false
    @Flag(help: "Skip the default-settings PESQ figures measured against baresip.") var skipQuality = false
    @Flag(help: "Skip the jitter-buffer delay figures (they need the PESQ tools too).") var skipJitter = false
    @Flag(help: "Receive the PESQ figures' audio without the jitter buffer's time-scale modification.") var frameLevel = false
    @Option(help: "Loss seeds per condition for the default-settings PESQ figures.") var qualitySeeds = 3
    @Flag(help: "Skip the capacity ramp.") var skipCapacity = false
    @Flag(help: "Skip the CPU-ratio and memory figures.") var skipCpu = false
    @Flag(help: "Skip the signaling loop-stall figure.") var skipLoop = false
    @Flag(help: "Skip the call-setup latency figures (SDES and ICE + DTLS-SRTP).") var skipSetup = false
    @Flag(help: "Skip the ICE + DTLS-SRTP call-setup figures (_dtls, ice_connect_ms_p50, dtls_handshake_ms_p50).") var skipSetupDtls = false
    @Flag(help: "Skip the in-memory DTLS handshake figure.") var skipDtlsMemory = false
    @Flag(help: "Skip the call-rate figures through Kamailio.") var skipRate = false
    @Flag(help: "Skip the ICE + DTLS-SRTP call-rate figure (call_setups_per_s_dtls and its ratio to SDES's).") var skipRateDtls = false
    @Flag(help: "Skip the SIP parser figures.") var skipParse = false
    @Flag(help: "Skip the CPU and memory figures measured against baresip.") var skipBaresip = false
    @Flag(help: "Skip the network-change figures (they need root, iproute2 and voicecall built alongside).") var skipNetchange = false

    func run() throws {
        var figures: [(String, String)] = []
        var settings = OpusSettings.voice
        if let complexity { settings.complexity = complexity }
        if let bitrate { settings.bitrate = bitrate }

        var memory: MemoryBenchmark.Result?
        if !skipCpu {
            let cpu = try CPURatioBenchmark(settings: settings).run()
            print(
                String(
                    format: "cpu: bare libopus+libsrtp %.1f µs/frame, full media path %.1f µs/frame over %d frames",
                    cpu.bareMicroseconds, cpu.fullMicroseconds, cpu.frames))
            flushOutput()
            figures.append(("media_cpu_ratio", String(format: "%.3f", cpu.ratio)))
            figures.append(("call_cpu_us_per_frame", String(format: "%.1f", cpu.fullMicroseconds)))
            let lossy = try CPURatioBenchmark(settings: settings).fullPathUnderLoss(0.05)
            print(String(format: "cpu: full media path with 5%% loss each way (FEC on) %.1f µs/frame", lossy))
            flushOutput()
            figures.append(("call_cpu_us_per_frame_loss5", String(format: "%.1f", lossy)))
            for srtp in try SRTPCostBenchmark().run() {
                print(
                    String(
                        format: "srtp: %@ protect+unprotect of a 172-byte packet: %.2f µs, %.1f heap allocations",
                        "\(srtp.suite)", srtp.microsecondsPerPair, srtp.allocationsPerPair))
                if srtp.suite == .aesCM128HmacSHA1_80 {
                    figures.append(("srtp_us_per_packet_pair", String(format: "%.2f", srtp.microsecondsPerPair)))
                    figures.append(("srtp_allocations_per_packet_pair", String(format: "%.1f", srtp.allocationsPerPair)))
                }
            }
            flushOutput()
            let m = try MemoryBenchmark(settings: settings, endpoints: 300).run()
            print(String(format: "memory: %d endpoints added %.0f KiB resident", m.endpoints, m.totalKiB))
            flushOutput()
            memory = m
        }

        if !skipLoop { figures += try Loop.figures(calls: 50, holdSeconds: 2) }
        if !skipSetup {
            figures += try Setup.figures(calls: 200, security: .sdes)
            if !skipSetupDtls { figures += try Setup.figures(calls: 200, security: .dtls) }
        }
        if !skipDtlsMemory { figures += try DTLSHandshake.figures(handshakes: 200) }
        if !skipBaresip {
            if SIPPeerRequirement.check("baresip") == .available {
                figures += try SideBySide.figures(calls: 10, seconds: 10)
            } else {
                print("side by side: skipped, baresip is not installed")
            }
        }
        if !skipParse {
            let parse = SIPParseBenchmark().run()
            print(
                String(
                    format: "parse: %d messages (RFC 4475's valid ones and a typical INVITE, %.0f bytes on average): %.0f msgs/s; the INVITE alone %.0f/s; memcpy of the same bytes %.0f msgs/s",
                    parse.corpus, parse.averageBytes, parse.messagesPerSecond, parse.invitesPerSecond, parse.memcpyMessagesPerSecond))
            flushOutput()
            figures.append(("sip_parse_msgs_per_s", String(format: "%.0f", parse.messagesPerSecond)))
            figures.append(("sip_parse_invites_per_s", String(format: "%.0f", parse.invitesPerSecond)))
            figures.append(("sip_parse_vs_memcpy", String(format: "%.4f", parse.messagesPerSecond / parse.memcpyMessagesPerSecond)))
        }
        if !skipRate {
            if SIPPeerRequirement.check("kamailio") == .available {
                figures += try Rate.figures(calls: 1_000, rates: [20, 30, 40, 50, 75, 100], media: 1, g711: false)
                if !skipRateDtls {
                    figures += try Rate.figures(calls: 1_000, rates: [20, 30, 40, 50, 75, 100], media: 1, g711: false, security: .dtls)
                    figures += Rate.dtlsRatio(figures)
                }
                figures += try Rate.figures(calls: 1_000, rates: [50, 75, 100, 125], media: 1, g711: true)
            } else {
                print("rate: skipped, kamailio is not installed")
            }
        }
        if !skipNetchange { figures += try NetChange.figures(runs: 3) }

        if !skipCapacity {
            // The bound is measured before and after the ramp (the machine's speed drifts over
            // minutes here) and averaged.
            func opusBound() throws -> Double {
                let bound = try OpusBoundBenchmark(settings: settings).run()
                print(
                    String(
                        format: "opus bound: encode+decode %.1f µs/frame on one thread, %.1f µs/frame with all %d cores busy: %.0f endpoints",
                        bound.singleThreadMicroseconds, bound.allCoresMicroseconds, bound.cores, bound.boundEndpoints))
                flushOutput()
                return bound.boundEndpoints
            }
            let boundBefore = try opusBound()
            // Late frames at a count come and go between identical runs on a shared machine, so
            // the capacity is the median of several ramps.
            var runs: [CapacityBenchmark.Result] = []
            for ramp in 1...max(1, ramps) {
                let run = try CapacityBenchmark(
                    settings: settings, maxEndpoints: maxStreams, step: step, fineStep: fineStep, seconds: seconds
                ).run()
                print(
                    String(
                        format: "capacity ramp %d: %d endpoints, CPU %.0f%% at capacity", ramp, run.endpoints,
                        (run.atCapacity?.cpuUtilization ?? 0) * 100))
                flushOutput()
                runs.append(run)
            }
            let capacity = runs.sorted { $0.endpoints < $1.endpoints }[runs.count / 2]
            let bound = (boundBefore + (try opusBound())) / 2
            figures.append(("max_realtime_streams", "\(capacity.endpoints)"))
            figures.append(("opus_bound_endpoints", String(format: "%.0f", bound)))
            figures.append(("capacity_efficiency", String(format: "%.2f", Double(capacity.endpoints) / bound)))
            if let at = capacity.atCapacity {
                figures.append(("cpu_utilization_at_capacity", String(format: "%.2f", at.cpuUtilization)))
            }
            figures.append(("opus_complexity", "\(settings.complexity)"))
        }
        if let memory { figures.append(("memory_per_stream_kib", String(format: "%.1f", memory.perEndpointKiB))) }

        if !skipPesq {
            let pesqSettings = OpusSettings.benchmark(
                complexity: pesqComplexity ?? OpusSettings.highQuality.complexity,
                bitrate: pesqBitrate ?? OpusSettings.highQuality.bitrate)
            print("pesq: Opus \(pesqSettings.bitrate / 1000) kbps, complexity \(pesqSettings.complexity), FEC following RTCP-reported loss")
            let pesq = try PESQBenchmark(settings: pesqSettings, timeStretch: !frameLevel)
            for loss in pesqLoss {
                let score = try pesq.run(lossPercent: loss)
                figures.append(("pesq_wb_loss\(loss)", String(format: "%.2f", score)))
            }
        }
        if !skipPesq && !skipJitter {
            figures += try JitterDelayBenchmark().figures()
        }
        if !skipPesq && !skipQuality {
            figures += try DefaultQualityBenchmark(seeds: qualitySeeds, timeStretch: !frameLevel).run()
        }
        printFigures(figures)
    }
}

struct Quality: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints only the default-settings PESQ-WB figures, ours and baresip's, through the same impairment, at our receiver and at baresip's.")

    @Option(help: "Loss seeds per condition.") var seeds = 3
    @Option(help: "Only these conditions (loss0, loss5, loss10, burst5, burst5_no_red).") var condition: [String] = []
    @Option(help: "Our Opus preset: voice (the default), highQuality or lowBandwidth.") var preset = "voice"
    @Flag(help: "Receive without the jitter buffer's time-scale modification (frame-level adaptation only).") var frameLevel = false
    @Flag(help: "Skip the figures at our receiver.") var skipOurs = false
    @Flag(help: "Skip the figures at baresip's receiver (pesq_at_baresip_vs_baresip_*).") var skipAtBaresip = false
    @Option(help: "Our calls send RFC 2198 redundancy this many frames deep (1 to 3; 0: none); default: the SDK's adaptive policy.") var redDepth: Int?
    @Option(help: "Our Opus bitrate and its cap, overriding the preset's (bits per second).") var bitrate: Int?
    @Option(help: "With --bitrate: the maxaveragebitrate cap (RED's per-packet budget).") var maxBitrate: Int?
    @Flag(help: "With --bitrate: no Opus in-band FEC (to compare RED alone).") var noFec = false

    func run() throws {
        let presets: [String: OpusSettings] = ["voice": .voice, "highQuality": .highQuality, "lowBandwidth": .lowBandwidth]
        guard var settings = presets[preset] else { throw BenchError("unknown preset \(preset); known: \(presets.keys.sorted())") }
        if let bitrate {
            settings = OpusSettings(
                bitrate: bitrate, maxAverageBitrate: maxBitrate, complexity: settings.complexity, fec: settings.fec && !noFec,
                packetLossPercent: settings.packetLossPercent)
        }
        var figures: [(String, String)] = []
        if !skipOurs {
            figures += try DefaultQualityBenchmark(
                seeds: seeds, only: condition, settings: settings, timeStretch: !frameLevel,
                red: redDepth.map { $0 > 0 ? .always(depth: $0) : .off } ?? .adaptive
            ).run()
        }
        if !skipAtBaresip { figures += try ReceiverQualityBenchmark(seeds: seeds, settings: settings).run() }
        printFigures(figures)
    }
}

struct Jitter: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints the jitter buffer's added delay (clean link, 30 ms jitter) and PESQ-WB under jitter and loss, with and without time-scale modification.")

    @Option(help: "Only these conditions (clean, jitter30, jitter30_loss5).") var condition: [String] = []
    @Option(help: "Network seeds per condition (each figure is the median).") var seeds = 3

    func run() throws {
        printFigures(try JitterDelayBenchmark(seeds: seeds).figures(only: condition))
    }
}

extension OpusSettings {
    /// The settings every benchmark figure uses.
    static func benchmark(complexity: Int, bitrate: Int) -> OpusSettings {
        var s = OpusSettings()
        s.complexity = complexity
        s.bitrate = bitrate
        return s
    }
}

struct Loop: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints loop_stall_max_ms: the caller's signaling loop while calls start, run and end at once.")

    @Option(help: "Calls placed at once.") var calls = 50
    @Option(help: "Seconds the calls are held.") var hold = 2.0

    func run() throws {
        printFigures(try Self.figures(calls: calls, holdSeconds: hold))
    }

    static func figures(calls: Int, holdSeconds: Double) throws -> [(String, String)] {
        let result = try LoopStallBenchmark(calls: calls, holdSeconds: holdSeconds).run()
        print(
            String(
                format: "loop: %d of %d calls connected in %.0f ms, ended in %.0f ms; caller's loop late by %.2f ms at most (%.2f ms of it running on the loop thread, %.0f ms in), %.2f ms p99",
                result.connected, calls, result.setupSeconds * 1000, result.teardownSeconds * 1000,
                result.maxStallMilliseconds, result.worstStallWorkMilliseconds, result.worstStallAtMilliseconds,
                result.p99StallMilliseconds))
        print(
            "loop: the caller's loop thread runs with nice \(result.profile.niceValue)"
                + (result.profile.hasShortSlice ? " and a short scheduler slice" : " (the kernel refused a short slice)"))
        flushOutput()
        return [
            ("loop_stall_max_ms", String(format: "%.2f", result.maxStallMilliseconds)),
            ("loop_stall_p99_ms", String(format: "%.2f", result.p99StallMilliseconds)),
        ]
    }
}

struct Failover: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Prints failover_call_setup_ms_p50 over UDP (a hung primary: the 4 s failover timeout) and TCP (a refused primary), each beside call_setup_ms_p50 with the primary alive: connect() to callDidConnect, a fresh client per call, names from dnsmasq on loopback."
    )

    @Option(help: "Calls measured for each case.") var calls = 5

    func run() throws {
        var figures: [(String, String)] = []
        for transport in [SIPTransportProtocol.udp, .tcp] {
            let name = transport == .udp ? "udp" : "tcp"
            let result = try FailoverBenchmark(calls: calls).run(transport: transport)
            print(
                String(
                    format: "failover %@: %d calls each, connect() to callDidConnect p50 %.2f ms with the primary alive, %.2f ms with it dead; %d failed",
                    name, calls, result.aliveMilliseconds, result.deadMilliseconds, result.failures))
            flushOutput()
            figures.append(("failover_call_setup_ms_p50_\(name)", String(format: "%.2f", result.deadMilliseconds)))
            figures.append(("failover_primary_alive_call_setup_ms_p50_\(name)", String(format: "%.2f", result.aliveMilliseconds)))
        }
        printFigures(figures)
    }
}

struct Setup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Prints call_setup_ms_p50 and _p95 with SDES keys (both clients .sdes), then _p50_dtls and _p95_dtls with ICE + DTLS-SRTP (both .dtls) and the caller's ice_connect_ms_p50 and dtls_handshake_ms_p50: connect() to callDidConnect on loopback over UDP, one call at a time."
    )

    @Option(help: "Calls measured for each media security.") var calls = 200
    @Flag(help: "Skip the SDES figures.") var skipSdes = false
    @Flag(help: "Skip the ICE + DTLS-SRTP figures.") var skipDtls = false
    @Flag(help: "Also through a TURN relay (coturn on loopback, started here): the caller relay-only, _p50_relay figures.")
    var relay = false

    func run() throws {
        var figures: [(String, String)] = []
        if !skipSdes { figures += try Self.figures(calls: calls, security: .sdes) }
        if !skipDtls { figures += try Self.figures(calls: calls, security: .dtls) }
        if relay { figures += try Self.relayFigures(calls: calls) }
        printFigures(figures)
    }

    /// `call_setup_ms_p50_relay` and `ice_connect_ms_p50_relay`: the DTLS run again with the
    /// caller relay-only through coturn (its allocation is part of each call's setup).
    static func relayFigures(calls: Int) throws -> [(String, String)] {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "bench-turn")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try TURNServerPeer(directory: directory)
        defer { server.stop() }
        var benchmark = CallSetupBenchmark(calls: calls, security: .dtls)
        benchmark.callerICE = ICEOptions(
            servers: [try ICEServer(server.url, username: TURNServerPeer.username, password: TURNServerPeer.password)], transportPolicy: .relay)
        let result = try benchmark.run()
        print(
            String(
                format:
                    "setup relay: %d calls, the caller relay-only through coturn: connect() to callDidConnect p50 %.2f ms, p95 %.2f ms, %d failed; stream start to a selected pair p50 %.2f ms, then to the keys p50 %.2f ms",
                calls, result.p50Milliseconds, result.p95Milliseconds, result.failures, result.iceConnectP50Milliseconds ?? .nan,
                result.dtlsHandshakeP50Milliseconds ?? .nan))
        flushOutput()
        var figures = [("call_setup_ms_p50_relay", String(format: "%.2f", result.p50Milliseconds))]
        if let ice = result.iceConnectP50Milliseconds { figures.append(("ice_connect_ms_p50_relay", String(format: "%.2f", ice))) }
        return figures
    }

    /// SDES gives `call_setup_ms_p50` and `_p95`; DTLS gives `_p50_dtls`, `_p95_dtls`,
    /// `ice_connect_ms_p50` and `dtls_handshake_ms_p50`.
    static func figures(calls: Int, security: MediaSecurity) throws -> [(String, String)] {
        let result = try CallSetupBenchmark(calls: calls, security: security).run()
        guard security == .dtls else {
            print(
                String(
                    format: "setup: %d calls, connect() to callDidConnect p50 %.2f ms, p95 %.2f ms, max %.2f ms, %d failed",
                    calls, result.p50Milliseconds, result.p95Milliseconds, result.maxMilliseconds, result.failures))
            flushOutput()
            return [
                ("call_setup_ms_p50", String(format: "%.2f", result.p50Milliseconds)),
                ("call_setup_ms_p95", String(format: "%.2f", result.p95Milliseconds)),
            ]
        }
        print(
            String(
                format:
                    "setup dtls: %d calls with ICE + DTLS-SRTP, connect() to callDidConnect p50 %.2f ms, p95 %.2f ms, max %.2f ms, %d failed; the caller's stream start to a selected pair p50 %.2f ms, then to the keys p50 %.2f ms (%d calls reported)",
                calls, result.p50Milliseconds, result.p95Milliseconds, result.maxMilliseconds, result.failures,
                result.iceConnectP50Milliseconds ?? .nan, result.dtlsHandshakeP50Milliseconds ?? .nan, result.pathTimings))
        flushOutput()
        var figures = [
            ("call_setup_ms_p50_dtls", String(format: "%.2f", result.p50Milliseconds)),
            ("call_setup_ms_p95_dtls", String(format: "%.2f", result.p95Milliseconds)),
        ]
        if let ice = result.iceConnectP50Milliseconds, let dtls = result.dtlsHandshakeP50Milliseconds {
            figures.append(("ice_connect_ms_p50", String(format: "%.2f", ice)))
            figures.append(("dtls_handshake_ms_p50", String(format: "%.2f", dtls)))
        }
        return figures
    }
}

struct DTLSHandshake: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dtls-handshake",
        abstract: "Prints dtls_handshake_ms_p50_memory: two DTLS-SRTP associations handshaking through memory, the handshake's CPU cost alone.")

    @Option(help: "Handshakes measured.") var handshakes = 200

    func run() throws {
        printFigures(try Self.figures(handshakes: handshakes))
    }

    static func figures(handshakes: Int) throws -> [(String, String)] {
        let result = try DTLSHandshakeBenchmark(handshakes: handshakes).run()
        print(
            String(
                format: "dtls: %d handshakes through memory, p50 %.2f ms, p95 %.2f ms, %d datagrams each",
                handshakes, result.p50Milliseconds, result.p95Milliseconds, result.datagrams))
        flushOutput()
        return [("dtls_handshake_ms_p50_memory", String(format: "%.2f", result.p50Milliseconds))]
    }
}

struct Rate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Prints call_setups_per_s: complete calls through Kamailio (needs kamailio) with SDES keys (both clients .sdes), rates rising until one fails; with --dtls also call_setups_per_s_dtls (both .dtls: ICE + DTLS-SRTP) and call_setups_per_s_dtls_ratio (dtls / sdes)."
    )

    @Option(help: "Calls placed at each rate.") var calls = 1_000
    @Option(help: "Rates tried, calls per second.") var rate: [Int] = [25, 50, 75, 100, 125, 150]
    @Option(help: "Seconds of media per call.") var media = 1.0
    @Flag(help: "G.711 only (no Opus): what signaling alone sustains.") var g711 = false
    @Flag(help: "Also run the calls with ICE + DTLS-SRTP (call_setups_per_s_dtls and the ratio to SDES's).") var dtls = false
    @Flag(help: "Skip the SDES run (with --dtls: the DTLS figure alone, no ratio).") var skipSdes = false

    func run() throws {
        var figures: [(String, String)] = []
        if !skipSdes { figures += try Self.figures(calls: calls, rates: rate, media: media, g711: g711) }
        if dtls {
            figures += try Self.figures(calls: calls, rates: rate, media: media, g711: g711, security: .dtls)
            figures += Self.dtlsRatio(figures)
        }
        printFigures(figures)
    }

    /// `call_setups_per_s` (`_g711`), with `_dtls` after it for ICE + DTLS-SRTP.
    static func figures(calls: Int, rates: [Int], media: Double, g711: Bool, security: MediaSecurity = .sdes) throws -> [(String, String)] {
        var benchmark = CallRateBenchmark(rates: rates, callsPerRate: calls, mediaSeconds: media, security: security)
        if g711 { benchmark.codecs = [.pcmu] }
        let steps = try benchmark.run()
        let best = steps.filter(\.sustained).map(\.rate).max() ?? 0
        return [((g711 ? "call_setups_per_s_g711" : "call_setups_per_s") + (security == .dtls ? "_dtls" : ""), "\(best)")]
    }

    /// `call_setups_per_s_dtls_ratio` (DTLS's rate over SDES's) when `figures` has both rates.
    static func dtlsRatio(_ figures: [(String, String)]) -> [(String, String)] {
        let rates = Dictionary(figures, uniquingKeysWith: { _, last in last })
        guard let sdes = rates["call_setups_per_s"].flatMap(Double.init), sdes > 0,
            let dtls = rates["call_setups_per_s_dtls"].flatMap(Double.init)
        else { return [] }
        return [("call_setups_per_s_dtls_ratio", String(format: "%.2f", dtls / sdes))]
    }
}

struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A soak (not CI): concurrent calls through Kamailio with churn; RSS, descriptors and threads every 10 s.")

    @Option(help: "Calls kept up at once.") var calls = 40
    @Option(help: "Minutes to run.") var minutes = 30.0
    @Option(help: "Minutes of warm-up left out of the slope and growth figures.") var warmUp = 5.0

    func run() throws {
        let figures = try SoakBenchmark(concurrent: calls, minutes: minutes, warmUpMinutes: warmUp).run()
        printFigures(figures)
    }
}

struct SideBySide: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baresip",
        abstract: "Prints cpu_per_call_vs_baresip and rss_per_call_vs_baresip: N calls between two baresip processes, then N between two of our clients, same settings.")

    @Option(help: "Calls at once on each side.") var calls = 10
    @Option(help: "Seconds measured.") var seconds = 10.0

    func run() throws {
        printFigures(try Self.figures(calls: calls, seconds: seconds))
    }

    static func figures(calls: Int, seconds: Double) throws -> [(String, String)] {
        let (ours, baresip) = try SideBySideBenchmark(calls: calls, seconds: seconds).run()
        print(
            String(
                format: "side by side, %d calls: ours %.4f CPU s per call-second and %.0f KiB per call; baresip %.4f and %.0f KiB",
                calls, ours.cpuPerCallSecond, ours.rssKiBPerCall, baresip.cpuPerCallSecond, baresip.rssKiBPerCall))
        flushOutput()
        return [
            ("cpu_per_call_vs_baresip", String(format: "%.2f", ours.cpuPerCallSecond / baresip.cpuPerCallSecond)),
            ("rss_per_call_vs_baresip", String(format: "%.2f", ours.rssKiBPerCall / max(1, baresip.rssKiBPerCall))),
        ]
    }
}
