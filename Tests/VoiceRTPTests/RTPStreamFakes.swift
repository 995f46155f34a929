import VoiceMediaTypes
import VoiceSupport

@testable import VoiceRTP

/// A codec for the pure stream's tests: 8 kHz linear PCM, each 48 kHz frame decimated by six
/// and played back by repeating each sample six times. Deterministic, so what comes out can be
/// compared with what went in; concealment repeats the last frame at half level.
final class FakePCMCodec: MediaEncoder, MediaDecoder {
    let codec = MediaCodec.pcmu
    let ptime: Int
    var samplesPerFrame: Int { 48 * ptime }
    var rtpTimestampIncrement: Int { 8 * ptime }
    var maxPayloadSize: Int { 2 * 8 * ptime }
    let supportsFEC = false
    private var last: [Int16] = []
    private(set) var bitrateChanges: [Int] = []

    init(ptime: Int = 20) { self.ptime = ptime }

    func encode(_ frame48k: UnsafeBufferPointer<Int16>, into out: UnsafeMutableRawBufferPointer) throws(MediaCodecError) -> Int {
        guard frame48k.count == samplesPerFrame else { throw .frameSizeMismatch(expected: samplesPerFrame, actual: frame48k.count) }
        let n = frame48k.count / 6
        guard out.count >= 2 * n else { throw .bufferTooSmall(needed: 2 * n, available: out.count) }
        for i in 0..<n { out.storeBytes(of: frame48k[i * 6].bigEndian, toByteOffset: 2 * i, as: Int16.self) }
        return 2 * n
    }
    func setPacketLossPercent(_ p: Int) {}
    func setFEC(_ on: Bool) {}
    func setBitrate(_ bps: Int) { bitrateChanges.append(bps) }

    func duration(of payload: UnsafeRawBufferPointer) throws(MediaCodecError) -> Int {
        guard payload.count >= 2 else { throw .invalidPayload }
        return payload.count / 2
    }
    func decode(_ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        let n = payload.count / 2
        last = (0..<n).map { Int16(bigEndian: payload.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self)) }
        for i in 0..<(n * 6) { pcm48k[i] = last[i / 6] }
        return n * 6
    }
    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        for i in 0..<frames48k { pcm48k[i] = last.isEmpty ? 0 : last[min(i / 6, last.count - 1)] / 2 }
        return frames48k
    }
    func decodeFEC(from nextPayload: UnsafeRawBufferPointer, frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>)
        throws(MediaCodecError) -> Int?
    { nil }
}

/// Packet protection for the pure stream's tests: a 4-byte tag (a keyed sum of the packet),
/// and a replay check on RTP sequence numbers. A packet changed on the way, or sealed with
/// another key, fails authentication; one seen before fails as a replay.
final class FakeProtection: PacketProtection {
    let key: UInt32
    private var seen = Set<UInt16>()
    let maximumTrailerLength = 4

    init(key: UInt32) { self.key = key }

    private func tag(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var sum = key
        for b in bytes { sum = sum &* 31 &+ UInt32(b) }
        return sum
    }

    private func seal(_ buffer: UnsafeMutableRawBufferPointer, _ length: Int) -> Int {
        buffer.storeBytes(of: tag(UnsafeRawBufferPointer(rebasing: buffer[0..<length])), toByteOffset: length, as: UInt32.self)
        return length + 4
    }

    private func open(_ buffer: UnsafeMutableRawBufferPointer, _ length: Int) throws(PacketProtectionError) -> Int {
        guard length > 4 else { throw .invalid }
        let body = length - 4
        guard buffer.loadUnaligned(fromByteOffset: body, as: UInt32.self) == tag(UnsafeRawBufferPointer(rebasing: buffer[0..<body]))
        else { throw .authentication }
        return body
    }

    func protect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int { seal(buffer, length) }
    func protect(rtcp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int { seal(buffer, length) }
    func unprotect(rtcp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int {
        try open(buffer, length)
    }
    func unprotect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int {
        let body = try open(buffer, length)
        let sequence = UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        guard seen.insert(sequence).inserted else { throw .replay }
        return body
    }
}

/// Records what a stream asks for, copying the bytes and samples out of its buffers.
struct RecordingOutput: RTPStreamOutput {
    struct Sent {
        var bytes: [UInt8]
        var destination: SocketAddress
        var component: RTPStreamComponent
    }
    var sent: [Sent] = []
    var played: [Int16] = []
    var published: [AudioStreamStats] = []
    var reported: [RTPStreamEvent] = []
    /// Whether the transport takes what is sent (false: every send is refused).
    var accepts = true

    mutating func perform(_ action: RTPStreamAction) -> Bool {
        switch action {
        case .send(let bytes, let destination, let component):
            sent.append(Sent(bytes: Array(bytes), destination: destination, component: component))
            return accepts
        case .play(let samples):
            played.append(contentsOf: samples)
        case .publish(let stats):
            published.append(stats)
        case .report(let event):
            reported.append(event)
        }
        return true
    }
}
