import CMallocCounter
import Foundation
import VoiceMedia
import VoiceMediaTypes

/// What SRTP costs per packet through the system's libsrtp2 (Debian builds it on NSS): one
/// protect and one unprotect of a 20 ms Opus packet (12-byte header, 160-byte payload), in CPU
/// time and heap allocations, for each suite we negotiate.
struct SRTPCostBenchmark {
    var packets = 100_000

    struct Result {
        var suite: SRTPSuite
        var microsecondsPerPair: Double
        var allocationsPerPair: Double
    }

    func run() throws -> [Result] {
        try [SRTPSuite.aesCM128HmacSHA1_80, .aeadAES128GCM, .aeadAES256GCM].map { try measure($0) }
    }

    private func measure(_ suite: SRTPSuite) throws -> Result {
        let key = SRTPKeyMaterial.random(for: suite)
        let session = try SRTPSession(outbound: key, inbound: key)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_500, alignment: 16)
        defer { buffer.deallocate() }
        let payload = 160
        func packet(_ seq: Int) {
            buffer.initializeMemory(as: UInt8.self, repeating: 0x5A)
            buffer.storeBytes(of: UInt8(0x80), toByteOffset: 0, as: UInt8.self)
            buffer.storeBytes(of: UInt8(111), toByteOffset: 1, as: UInt8.self)
            buffer.storeBytes(of: UInt16(truncatingIfNeeded: seq).bigEndian, toByteOffset: 2, as: UInt16.self)
            buffer.storeBytes(of: UInt32(truncatingIfNeeded: seq * 960).bigEndian, toByteOffset: 4, as: UInt32.self)
            buffer.storeBytes(of: UInt32(0x1234_5678).bigEndian, toByteOffset: 8, as: UInt32.self)
        }
        // Warm up, then count.
        for seq in 0..<1_000 {
            packet(seq)
            let n = try session.protectRTP(buffer, length: 12 + payload)
            _ = try session.unprotectRTP(buffer, length: n)
        }
        voice_malloc_counter_track_current_thread(1)
        let allocations0 = voice_malloc_counter_tracked_count()
        let cpu0 = ProcessFigures.threadCPUSeconds()
        for seq in 1_000..<(1_000 + packets) {
            packet(seq)
            let n = try session.protectRTP(buffer, length: 12 + payload)
            _ = try session.unprotectRTP(buffer, length: n)
        }
        let cpu = ProcessFigures.threadCPUSeconds() - cpu0
        let allocations = voice_malloc_counter_tracked_count() - allocations0
        voice_malloc_counter_track_current_thread(0)
        return Result(
            suite: suite, microsecondsPerPair: cpu / Double(packets) * 1e6,
            allocationsPerPair: Double(allocations) / Double(packets))
    }
}
