import VoiceBytes
import XCTest
@testable import VoiceRTP
import VoiceTestAudio
import VoiceSupport
import VoiceMediaTypes

/// One scripted RTP packet for jitter buffer tests. The payload's first four bytes carry
/// `index` (big-endian) so playout can be traced back to the packet.
struct JitterTestPacket {
    var index: Int
    var seq: UInt16
    var ts: UInt32
    var ssrc: UInt32 = 0x1234_5678
    var marker = false
    var duration = 960
    var size = 40
    var arrival: MediaTime
}

/// What one playout request produced, with the packet index decoded from the payload.
enum JitterTestOutput: Equatable {
    case packet(Int, duration: Int)
    case accelerate(Int, duration: Int, urgent: Bool)
    case stretch(Int, duration: Int, urgent: Bool)
    case recover(Int, duration: Int)
    case conceal(duration: Int)
    case silence(duration: Int)

    var duration: Int {
        switch self {
        case .packet(_, let d), .accelerate(_, let d, _), .stretch(_, let d, _), .recover(_, let d), .conceal(let d), .silence(let d): d
        }
    }

    /// The packet played, however it was time-scaled.
    var playedIndex: Int? {
        switch self {
        case .packet(let i, _), .accelerate(let i, _, _), .stretch(let i, _, _): i
        default: nil
        }
    }

    /// How long the output lasts when a time-scaled packet is shortened or lengthened by
    /// `stretchUnits` (a stand-in for one pitch period).
    func playedDuration(stretchUnits: Int) -> Int {
        switch self {
        case .accelerate: duration - stretchUnits
        case .stretch: duration + stretchUnits
        default: duration
        }
    }
}

/// Seeded SplitMix64 (VoiceTestKit's), so scripted networks are reproducible.
struct JitterTestRandom {
    private var generator: SplitMix64
    init(state: UInt64) { generator = SplitMix64(seed: state) }
    mutating func next() -> UInt64 { generator.next() }
    /// Uniform in 0..<1.
    mutating func unit() -> Double { generator.nextUnit() }
    /// Uniform integer in range.
    mutating func int(in range: ClosedRange<Int64>) -> Int64 {
        range.lowerBound + Int64(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}

extension JitterBufferConfiguration {
    /// The default configuration without time-scale modification: delay moves by whole frames.
    static var frameLevel: JitterBufferConfiguration {
        var c = JitterBufferConfiguration()
        c.timeStretch = false
        return c
    }
}

/// Drives a ``JitterBuffer`` on a virtual clock: before each playout request, every packet
/// whose arrival is due is inserted (in arrival order).
struct JitterHarness {
    var buffer: JitterBuffer
    var pending: [JitterTestPacket] = []
    var insertResults: [(index: Int, result: JitterBufferInsertResult)] = []
    var outputs: [JitterTestOutput] = []
    var now = MediaTime.zero
    var out = [UInt8](repeating: 0, count: 1500)

    init(_ configuration: JitterBufferConfiguration = JitterBufferConfiguration()) {
        buffer = JitterBuffer(configuration: configuration)
    }

    /// Queues packets; they are inserted when the clock reaches their arrival.
    mutating func send(_ packets: [JitterTestPacket]) {
        pending.append(contentsOf: packets)
        pending.sort { $0.arrival < $1.arrival }
    }

    mutating func deliverDue() {
        while let p = pending.first, p.arrival <= now {
            pending.removeFirst()
            insertResults.append((p.index, Self.insert(p, into: &buffer)))
        }
    }

    static func insert(_ p: JitterTestPacket, into buffer: inout JitterBuffer) -> JitterBufferInsertResult {
        var bytes = [UInt8](repeating: 0xA5, count: p.size)
        bytes.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            try? w.write(UInt32(truncatingIfNeeded: p.index))
        }
        return bytes.withUnsafeBytes {
            buffer.insert(
                sequenceNumber: p.seq, timestamp: p.ts, ssrc: p.ssrc, marker: p.marker,
                payload: $0, duration: p.duration, arrival: p.arrival)
        }
    }

    /// Delivers what is due, requests one frame at `now`, records and returns it.
    @discardableResult
    mutating func tick() -> JitterTestOutput {
        deliverDue()
        let result = out.withUnsafeMutableBytes { buffer.nextFrame(at: now, into: $0) }
        let decoded: JitterTestOutput
        switch result {
        case .packet(let length, let d): decoded = .packet(index(length), duration: d)
        case .accelerate(let length, let d, let u, _): decoded = .accelerate(index(length), duration: d, urgent: u)
        case .stretch(let length, let d, let u, _): decoded = .stretch(index(length), duration: d, urgent: u)
        case .recoverFromNext(let length, let d): decoded = .recover(index(length), duration: d)
        case .conceal(let d): decoded = .conceal(duration: d)
        case .silence(let d): decoded = .silence(duration: d)
        }
        XCTAssertEqual(decoded.duration, result.duration)
        outputs.append(decoded)
        return decoded
    }

    func index(_ length: Int) -> Int {
        out.withUnsafeBytes { raw in
            var r = ByteReader(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            return (try? r.readUInt32()).map(Int.init) ?? -1
        }
    }

    /// Ticks every `period` until `end`.
    mutating func run(until end: MediaTime, period: MediaTime = .milliseconds(20)) {
        while now < end {
            tick()
            now += period
        }
    }

    /// Ticks, advancing the clock by each output's own duration, until `end`; a time-scaled
    /// packet lasts `stretchUnits` less (accelerated) or more (stretched).
    mutating func runPacedByOutput(until end: MediaTime, clockRate: Int64 = 48_000, stretchUnits: Int = 240) {
        while now < end {
            let o = tick()
            now += MediaTime(nanoseconds: Int64(o.playedDuration(stretchUnits: stretchUnits)) * 1_000_000_000 / clockRate)
        }
    }

    var played: [Int] { outputs.compactMap(\.playedIndex) }
    var accelerated: Int { outputs.filter { if case .accelerate = $0 { true } else { false } }.count }
    var stretched: Int { outputs.filter { if case .stretch = $0 { true } else { false } }.count }
    var recovered: [Int] { outputs.compactMap { if case .recover(let i, _) = $0 { i } else { nil } } }
    var conceals: Int { outputs.filter { if case .conceal = $0 { true } else { false } }.count }
    var silences: Int { outputs.filter { if case .silence = $0 { true } else { false } }.count }
    func result(of index: Int) -> [JitterBufferInsertResult] { insertResults.filter { $0.index == index }.map(\.result) }

    /// Outputs after the first played packet.
    var afterStart: ArraySlice<JitterTestOutput> {
        guard let first = outputs.firstIndex(where: { $0.playedIndex != nil }) else { return [] }
        return outputs[first...]
    }
}

/// A 20 ms stream: packet `n` is sent at `start + n·20 ms` and arrives `delay(n)` later.
func jitterTestStream(
    count: Int, firstIndex: Int = 0, startSeq: UInt16 = 1000, startTs: UInt32 = 50_000,
    ssrc: UInt32 = 0x1234_5678, duration: Int = 960, start: MediaTime = .zero,
    delay: (Int) -> MediaTime = { _ in .milliseconds(30) }
) -> [JitterTestPacket] {
    (0..<count).map { n in
        let sendNs = start.nanoseconds + Int64(n) * Int64(duration) * 1_000_000_000 / 48_000
        return JitterTestPacket(
            index: firstIndex + n, seq: startSeq &+ UInt16(truncatingIfNeeded: n),
            ts: startTs &+ UInt32(truncatingIfNeeded: n * duration), ssrc: ssrc,
            duration: duration, arrival: MediaTime(nanoseconds: sendNs) + delay(n))
    }
}

final class JitterBufferHarnessTests: XCTestCase {
    func testHarnessRandomIsSeededAndUniform() {
        var a = JitterTestRandom(state: 7)
        var b = JitterTestRandom(state: 7)
        XCTAssertEqual((0..<5).map { _ in a.next() }, (0..<5).map { _ in b.next() })
        let values = (0..<1000).map { _ in a.int(in: -3...3) }
        XCTAssertEqual(Set(values), Set(-3...3))
    }
}
