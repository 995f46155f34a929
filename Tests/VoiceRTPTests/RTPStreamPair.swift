import VoiceMediaTypes
import VoiceTestAudio
import VoiceSupport

@testable import VoiceRTP

/// Two ``RTPStream`` values wired together in virtual time: each sends a 20 ms frame every
/// 20 ms, plays a frame every 20 ms and ticks every 5 ms; what one sends reaches the other
/// after the wire's delay, or is lost. Nothing runs in real time: a minute of call takes
/// milliseconds.
struct RTPStreamPair {
    /// One side: its stream, its address and what it did.
    struct Side {
        var stream: RTPStream
        var address: SocketAddress
        var output = RecordingOutput()
        /// The frames it captured so far (each frame's samples come from ``RTPStreamPair/ramp``).
        var framesSent = 0
    }

    /// A datagram on the wire.
    struct InFlight {
        var due: MediaTime
        var bytes: [UInt8]
        var source: SocketAddress
        var toB: Bool
    }

    var a: Side
    var b: Side
    var now = MediaTime.seconds(10)
    var wire: [InFlight] = []
    /// Chance a datagram is lost, and the most extra delay it may take (uniform), per direction.
    var lossRate = 0.0
    var jitter = MediaTime.zero
    var latency = MediaTime.milliseconds(10)
    var random = SplitMix64(seed: 1)
    /// Datagrams injected on the wire by the test (forgeries, replays), delivered as if sent.
    var lostOnWire = 0
    /// Datagrams the wire loses on purpose (true: lost), besides ``lossRate``.
    var dropsOnWire: ([UInt8]) -> Bool = { _ in false }

    static let addressA = try! SocketAddress(host: "10.0.0.1", port: 4000)
    static let addressB = try! SocketAddress(host: "10.0.0.2", port: 5000)

    init(protectionKeys: (UInt32, UInt32)? = (7, 7), configure: (inout AudioStreamConfiguration) -> Void = { _ in }) {
        func make(_ local: SocketAddress, ssrc: UInt32) -> RTPStream {
            var c = AudioStreamConfiguration(localAddress: local, codec: .pcmu, encryption: .unencrypted)
            c.ssrc = ssrc
            c.initialSequenceNumber = 100
            c.initialTimestamp = 1_000
            c.rtcpInterval = .seconds(1)
            configure(&c)
            let codec = FakePCMCodec(ptime: c.ptime)
            return RTPStream(configuration: c, encoder: codec, decoder: codec, protection: nil)
        }
        a = Side(stream: make(Self.addressA, ssrc: 0xA), address: Self.addressA)
        b = Side(stream: make(Self.addressB, ssrc: 0xB), address: Self.addressB)
        if let (keyA, keyB) = protectionKeys {
            // One key per direction, as SDES gives: A seals with its own and opens with B's.
            a.stream.sendProtection = FakeProtection(key: keyA)
            a.stream.receiveProtection = FakeProtection(key: keyB)
            b.stream.sendProtection = FakeProtection(key: keyB)
            b.stream.receiveProtection = FakeProtection(key: keyA)
        }
        a.stream.setRemote(RemoteEndpoints(rtp: Self.addressB, rtcp: Self.addressB))
        b.stream.setRemote(RemoteEndpoints(rtp: Self.addressA, rtcp: Self.addressA))
    }

    /// The test signal's 8 kHz samples: a ramp through −30000…29999, unique over 7.5 s, so a
    /// played frame tells which frame it was.
    static func ramp(_ index8k: Int) -> Int16 { Int16(-30_000 + index8k % 60_000) }

    /// The ramp's sample after `v`.
    static func next(_ v: Int16) -> Int16 { v == 29_999 ? -30_000 : v + 1 }

    /// Runs `duration` of virtual time in 5 ms steps.
    mutating func run(_ duration: MediaTime) {
        let end = now + duration
        while now < end {
            now = now + .milliseconds(5)
            deliver()
            let step = (now.nanoseconds / 5_000_000) % 4
            if step == 0 {
                Self.capture(&a, at: now)
                Self.capture(&b, at: now)
                a.stream.playout(at: now, room: 48 * 120, output: &a.output)
                b.stream.playout(at: now, room: 48 * 120, output: &b.output)
            }
            a.stream.tick(at: now, output: &a.output)
            b.stream.tick(at: now, output: &b.output)
            let sentByA = a.output.sent, sentByB = b.output.sent
            a.output.sent.removeAll()
            b.output.sent.removeAll()
            carry(sentByA, toB: true)
            carry(sentByB, toB: false)
        }
    }

    private static func capture(_ side: inout Side, at now: MediaTime) {
        let n = side.stream.samplesPerFrame
        var frame = [Int16](repeating: 0, count: n)
        for i in 0..<n { frame[i] = Self.ramp((side.framesSent * n + i) / 6) }
        side.framesSent += 1
        frame.withUnsafeMutableBufferPointer { side.stream.send(frame: $0, at: now, output: &side.output) }
    }

    /// Puts what a side sent on the wire (or loses it).
    private mutating func carry(_ sent: [RecordingOutput.Sent], toB: Bool) {
        for datagram in sent {
            if dropsOnWire(datagram.bytes) || (lossRate > 0 && random.nextUnit() < lossRate) {
                lostOnWire += 1
                continue
            }
            let extra = jitter.nanoseconds > 0 ? Int64(random.nextUnit() * Double(jitter.nanoseconds)) : 0
            wire.append(InFlight(due: now + latency + MediaTime(nanoseconds: extra), bytes: datagram.bytes, source: toB ? a.address : b.address, toB: toB))
        }
    }

    /// Hands every datagram due by now to its side.
    mutating func deliver() {
        let due = wire.enumerated().filter { $0.element.due <= now }.sorted { $0.element.due < $1.element.due }
        wire.removeAll { $0.due <= now }
        for (_, datagram) in due { inject(datagram.bytes, from: datagram.source, toB: datagram.toB) }
    }

    /// Delivers `bytes` to one side now, as if from `source`.
    mutating func inject(_ bytes: [UInt8], from source: SocketAddress, toB: Bool) {
        var buffer = bytes + [UInt8](repeating: 0, count: 64)
        buffer.withUnsafeMutableBytes { raw in
            if toB {
                b.stream.receive(raw, length: bytes.count, from: source, at: now, output: &b.output)
            } else {
                a.stream.receive(raw, length: bytes.count, from: source, at: now, output: &a.output)
            }
        }
    }

    /// How many of the 20 ms frames `played` holds are the signal exactly (160 ramp samples,
    /// each played six times), and how many of those continue the frame before them (no gap,
    /// no repeat). A concealed, silent or corrupted frame is neither.
    static func intactFrames(in played: [Int16]) -> (intact: Int, continuing: Int) {
        var intact = 0, continuing = 0
        var previousLast: Int16?
        var start = 0
        while start + 960 <= played.count {
            var ok = true
            for k in 0..<160 where ok {
                let value = played[start + k * 6]
                if k > 0 { ok = value == next(played[start + (k - 1) * 6]) }
                for r in 1..<6 where ok { ok = played[start + k * 6 + r] == value }
            }
            if ok {
                intact += 1
                if let last = previousLast, played[start] == next(last) { continuing += 1 }
                previousLast = played[start + 959]
            } else {
                previousLast = nil
            }
            start += 960
        }
        return (intact, continuing)
    }
}
