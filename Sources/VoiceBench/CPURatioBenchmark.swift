import COpus
import CLibSRTP
import CVoiceShims
import Foundation
import VoiceMedia
import VoiceTestKit

/// `media_cpu_ratio`: CPU per 20 ms frame of the full media path (capture → encode → RTP → SRTP →
/// UDP → SRTP → jitter buffer → decode → render, on real streams in real time) divided by a bare
/// loop that only calls libopus and libsrtp on the same frames with the same settings.
struct CPURatioBenchmark {
    let settings: OpusSettings
    var pairs = 10
    var seconds = 8.0

    struct Result {
        var bareMicroseconds: Double
        var fullMicroseconds: Double
        var frames: Int
        var ratio: Double { fullMicroseconds / bareMicroseconds }
    }

    func run() throws -> Result {
        let signal = TestSignals.speechLike(seconds: 10)
        let bare = try bareLoop(signal: signal, frames: 3_000)
        let full = try fullPath(signal: signal)
        return Result(bareMicroseconds: bare, fullMicroseconds: full.perFrame, frames: full.frames)
    }

    /// Encode, protect, unprotect, decode: nothing else.
    func bareLoop(signal: [Int16], frames: Int) throws -> Double {
        var err: Int32 = 0
        guard let enc = opus_encoder_create(48_000, 1, OPUS_APPLICATION_VOIP, &err),
              let dec = opus_decoder_create(48_000, 1, &err) else { throw BenchError("opus create failed: \(err)") }
        defer {
            opus_encoder_destroy(enc)
            opus_decoder_destroy(dec)
        }
        voice_opus_encoder_set_complexity(enc, Int32(settings.complexity))
        voice_opus_encoder_set_bitrate(enc, Int32(settings.bitrate))
        voice_opus_encoder_set_vbr(enc, 1)
        voice_opus_encoder_set_signal(enc, OPUS_SIGNAL_VOICE)
        voice_opus_encoder_set_inband_fec(enc, 0)
        voice_opus_encoder_set_packet_loss_perc(enc, 0)
        // libsrtp is initialised once per process by VoiceMedia; a throwaway session makes sure it has been.
        let warmKey = SRTPKeyMaterial.random(for: .aesCM128HmacSHA1_80)
        _ = try SRTPSession(outbound: warmKey, inbound: warmKey)
        var key = [UInt8](repeating: 0, count: 30)
        for i in key.indices { key[i] = UInt8.random(in: 0...255) }
        var tx: srtp_t?
        var rx: srtp_t?
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
        defer {
            srtp_dealloc(tx)
            srtp_dealloc(rx)
        }
        var packet = [UInt8](repeating: 0, count: 1600)
        var pcm = [Int16](repeating: 0, count: 960)
        let frameCount = signal.count / 960
        let start = ProcessFigures.threadCPUSeconds()
        for i in 0..<frames {
            let offset = (i % frameCount) * 960
            let n = signal.withUnsafeBufferPointer { s in
                packet.withUnsafeMutableBufferPointer { p in
                    opus_encode(enc, s.baseAddress! + offset, 960, p.baseAddress! + 12, 1_400)
                }
            }
            packet.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: UInt8(0x80), toByteOffset: 0, as: UInt8.self)
                raw.storeBytes(of: UInt8(111), toByteOffset: 1, as: UInt8.self)
                raw.storeBytes(of: UInt16(truncatingIfNeeded: i).bigEndian, toByteOffset: 2, as: UInt16.self)
                raw.storeBytes(of: UInt32(truncatingIfNeeded: i * 960).bigEndian, toByteOffset: 4, as: UInt32.self)
                raw.storeBytes(of: UInt32(0x1234_5678).bigEndian, toByteOffset: 8, as: UInt32.self)
                var len = Int32(12 + n)
                srtp_protect(tx, raw.baseAddress, &len)
                srtp_unprotect(rx, raw.baseAddress, &len)
                pcm.withUnsafeMutableBufferPointer { out in
                    _ = opus_decode(dec, raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + 12, len - 12, out.baseAddress!, 960, 0)
                }
            }
        }
        let spent = ProcessFigures.threadCPUSeconds() - start
        return spent / Double(frames) * 1e6
    }

    /// Real streams on loopback in real time: CPU time of the media engine's threads (everything
    /// from the captured frame to the decoded one, including the UDP system calls and the
    /// kernel's loopback delivery) over a steady window, divided by the frames sent. The audio
    /// devices' own threads are not counted: they stand in for a sound card.
    func fullPath(signal: [Int16]) throws -> (perFrame: Double, frames: Int) {
        // One worker thread, like the bare loop's one thread: both are measured on one core while the
        // other core runs the simulated sound cards, so neither side shares its core with the other.
        let engine = MediaEngine(workerCount: 1)
        var calls: [LoopbackCall] = []
        for i in 0..<pairs {
            let rotatedA = Array(signal[(i * 4_800 % signal.count)...] + signal[..<(i * 4_800 % signal.count)])
            let call = try LoopbackCall(codec: .opus(settings), signalA: rotatedA, signalB: signal, loop: true, record: false,
                                        engine: engine)
            try call.start()
            calls.append(call)
        }
        defer { calls.forEach { $0.stop() } }
        Thread.sleep(forTimeInterval: 2)
        let sent0 = calls.reduce(UInt64(0)) { $0 + $1.a.stats.packetsSent + $1.b.stats.packetsSent }
        let cpu0 = engine.cpuTime.seconds
        Thread.sleep(forTimeInterval: seconds)
        let cpu1 = engine.cpuTime.seconds
        let sent1 = calls.reduce(UInt64(0)) { $0 + $1.a.stats.packetsSent + $1.b.stats.packetsSent }
        let frames = Int(sent1 - sent0)
        return ((cpu1 - cpu0) / Double(max(1, frames)) * 1e6, frames)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
