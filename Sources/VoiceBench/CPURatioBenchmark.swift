import COpus
import CLibSRTP
import CVoiceShims
import Foundation
import VoiceMedia
import VoiceTestKit
#if canImport(Glibc)
    import Glibc
#endif
import VoiceTestAudio
import VoiceMediaTypes

/// `media_cpu_ratio`: CPU per 20 ms frame of the full media path (capture → encode → RTP → SRTP →
/// UDP → SRTP → jitter buffer → decode → render, on real streams in real time) divided by a bare
/// loop that only calls libopus and libsrtp on the same frames with the same settings.
///
/// Both sides run the same shape of work so the comparison is about the SDK, not about caches:
/// one thread, one encoder/decoder/SRTP context per stream endpoint, every context handling one
/// frame each 20 ms in real time. The rounds alternate and the medians are compared.
struct CPURatioBenchmark {
    let settings: OpusSettings
    var pairs = 10
    var seconds = 4.0
    var rounds = 3

    struct Result {
        var bareMicroseconds: Double
        var fullMicroseconds: Double
        var frames: Int
        var ratio: Double { fullMicroseconds / bareMicroseconds }
    }

    func run() throws -> Result {
        let signal = TestSignals.speechLike(seconds: 10)
        var bare: [Double] = []
        var full: [Double] = []
        var frames = 0
        for _ in 0..<rounds {
            bare.append(try bareLoop(signal: signal))
            let f = try fullPath(signal: signal)
            full.append(f.perFrame)
            frames += f.frames
        }
        func median(_ x: [Double]) -> Double { x.sorted()[x.count / 2] }
        return Result(bareMicroseconds: median(bare), fullMicroseconds: median(full), frames: frames)
    }

    /// The full media path's CPU per frame with `lossRate` random loss each way: the median of `rounds`.
    func fullPathUnderLoss(_ lossRate: Double) throws -> Double {
        let signal = TestSignals.speechLike(seconds: 10)
        var full: [Double] = []
        for _ in 0..<rounds { full.append(try fullPath(signal: signal, lossRate: lossRate).perFrame) }
        return full.sorted()[full.count / 2]
    }

    /// Encode, protect, unprotect, decode: nothing else, for `2 × pairs` contexts in real time.
    func bareLoop(signal: [Int16]) throws -> Double {
        let contexts = try (0..<(2 * pairs)).map { _ in try BareContext(settings: settings) }
        let frameCount = signal.count / 960
        var packet = [UInt8](repeating: 0, count: 1_600)
        var pcm = [Int16](repeating: 0, count: 960)
        let ticks = Int(seconds * 50)
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let start = ProcessFigures.threadCPUSeconds()
        var frames = 0
        for tick in 0..<ticks {
            for (i, ctx) in contexts.enumerated() {
                let offset = ((tick + i * 7) % frameCount) * 960
                signal.withUnsafeBufferPointer { s in
                    packet.withUnsafeMutableBytes { raw in
                        pcm.withUnsafeMutableBufferPointer { out in
                            ctx.process(s.baseAddress! + offset, seq: tick, packet: raw, pcm: out)
                        }
                    }
                }
                frames += 1
            }
            deadline.tv_nsec += 20_000_000
            if deadline.tv_nsec >= 1_000_000_000 {
                deadline.tv_nsec -= 1_000_000_000
                deadline.tv_sec += 1
            }
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
        }
        let spent = ProcessFigures.threadCPUSeconds() - start
        return spent / Double(frames) * 1e6
    }

    /// Real streams on loopback in real time: CPU time of the media engine's thread (everything
    /// from the captured frame to the decoded one, including the UDP system calls and the
    /// kernel's loopback delivery) over a steady window, divided by the frames sent. The audio
    /// devices' own thread is not counted: it stands in for a sound card.
    /// With `lossRate`, both directions lose packets at random (through an impairment proxy,
    /// whose thread is not counted), so the senders run with FEC on.
    func fullPath(signal: [Int16], lossRate: Double = 0) throws -> (perFrame: Double, frames: Int) {
        let engine = MediaEngine(workerCount: 1)
        var calls: [LoopbackCall] = []
        for i in 0..<pairs {
            let shift = (i * 4_800) % signal.count
            let loss = lossRate > 0 ? NetworkImpairment(lossRate: lossRate, seed: UInt64(i)) : nil
            let call = try LoopbackCall(
                codec: .opus(settings), signalA: Array(signal[shift...] + signal[..<shift]), signalB: signal,
                loop: true, record: false, impairmentAToB: loss, impairmentBToA: loss, engine: engine,
                rtcpInterval: lossRate > 0 ? .seconds(1) : .seconds(5))
            try call.start()
            calls.append(call)
        }
        defer { calls.forEach { $0.stop() } }
        // The window starts once the first receiver reports (1.25–2.5 s at the 5 s default) have
        // set the senders' FEC: on with loss, off (after the call's initial protection) without.
        Thread.sleep(forTimeInterval: lossRate > 0 ? 4 : 3)
        let sent0 = calls.reduce(UInt64(0)) { $0 + $1.a.stats.packetsSent + $1.b.stats.packetsSent }
        let cpu0 = engine.cpuTime.seconds
        Thread.sleep(forTimeInterval: seconds)
        let cpu1 = engine.cpuTime.seconds
        let sent1 = calls.reduce(UInt64(0)) { $0 + $1.a.stats.packetsSent + $1.b.stats.packetsSent }
        let frames = Int(sent1 - sent0)
        return ((cpu1 - cpu0) / Double(max(1, frames)) * 1e6, frames)
    }
}

/// One endpoint's worth of libopus and libsrtp state for the bare loop.
final class BareContext {
    let opus: BareOpusContext
    var enc: OpaquePointer { opus.enc }
    var dec: OpaquePointer { opus.dec }
    var tx: srtp_t?
    var rx: srtp_t?

    init(settings: OpusSettings) throws {
        opus = try BareOpusContext(settings: settings)
        // libsrtp is initialised once per process by VoiceMedia; a throwaway session makes sure it has been.
        let warmKey = SRTPKeyMaterial.random(for: .aesCM128HmacSHA1_80)
        _ = try SRTPSession(outbound: warmKey, inbound: warmKey)
        var key = (0..<30).map { _ in UInt8.random(in: 0...255) }
        try key.withUnsafeMutableBufferPointer { k in
            var p = srtp_policy_t()
            srtp_crypto_policy_set_rtp_default(&p.rtp)
            srtp_crypto_policy_set_rtcp_default(&p.rtcp)
            p.key = k.baseAddress
            p.window_size = 128
            p.ssrc.type = ssrc_any_outbound
            guard srtp_create(&tx, &p) == srtp_err_status_ok else { throw BenchError("srtp_create tx") }
            p.ssrc.type = ssrc_any_inbound
            guard srtp_create(&rx, &p) == srtp_err_status_ok else { throw BenchError("srtp_create rx") }
        }
    }

    deinit {
        srtp_dealloc(tx)
        srtp_dealloc(rx)
    }

    func process(_ frame: UnsafePointer<Int16>, seq: Int, packet raw: UnsafeMutableRawBufferPointer, pcm: UnsafeMutableBufferPointer<Int16>)
    {
        guard let base = raw.baseAddress else { return }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let n = opus_encode(enc, frame, 960, bytes + 12, 1_400)
        raw.storeBytes(of: UInt8(0x80), toByteOffset: 0, as: UInt8.self)
        raw.storeBytes(of: UInt8(111), toByteOffset: 1, as: UInt8.self)
        raw.storeBytes(of: UInt16(truncatingIfNeeded: seq).bigEndian, toByteOffset: 2, as: UInt16.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: seq * 960).bigEndian, toByteOffset: 4, as: UInt32.self)
        raw.storeBytes(of: UInt32(0x1234_5678).bigEndian, toByteOffset: 8, as: UInt32.self)
        var len = Int32(12 + max(0, n))
        srtp_protect(tx, base, &len)
        srtp_unprotect(rx, base, &len)
        if let out = pcm.baseAddress { _ = opus_decode(dec, bytes + 12, len - 12, out, 960, 0) }
    }
}

/// One endpoint's libopus encoder and decoder, nothing else, for the codec's bound.
final class BareOpusContext {
    let enc: OpaquePointer
    let dec: OpaquePointer

    init(settings: OpusSettings) throws {
        var err: Int32 = 0
        guard let e = opus_encoder_create(48_000, 1, OPUS_APPLICATION_VOIP, &err),
            let d = opus_decoder_create(48_000, 1, &err)
        else { throw BenchError("opus create failed: \(err)") }
        enc = e
        dec = d
        voice_opus_encoder_set_complexity(enc, Int32(settings.complexity))
        voice_opus_encoder_set_bitrate(enc, Int32(settings.bitrate))
        voice_opus_encoder_set_vbr(enc, 1)
        voice_opus_encoder_set_signal(enc, OPUS_SIGNAL_VOICE)
        voice_opus_encoder_set_inband_fec(enc, 0)
        voice_opus_encoder_set_packet_loss_perc(enc, 0)
    }

    deinit {
        opus_encoder_destroy(enc)
        opus_decoder_destroy(dec)
    }

    /// Encodes one 20 ms frame and decodes it again.
    func process(_ frame: UnsafePointer<Int16>, packet: inout [UInt8], pcm: inout [Int16]) {
        packet.withUnsafeMutableBufferPointer { p in
            pcm.withUnsafeMutableBufferPointer { out in
                guard let bytes = p.baseAddress, let samples = out.baseAddress else { return }
                let n = opus_encode(enc, frame, 960, bytes, Int32(p.count))
                if n > 0 { _ = opus_decode(dec, bytes, n, samples, 960, 0) }
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
