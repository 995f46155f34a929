import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSignals
import VoiceMediaTypes

/// Late frames across a set of running calls: engine ticks that overran, audio the device found
/// missing, captured audio dropped, and frames the jitter buffer had to conceal or found late
/// (on a clean loopback link every one of those means the engine fell behind).
struct LateFrames {
    var overruns = 0
    var underruns: UInt64 = 0
    var overflows: UInt64 = 0
    var concealed: UInt64 = 0
    var late: UInt64 = 0
    /// Frames that reached the device late or never: render underruns, dropped capture, and
    /// packets the jitter buffer received too late or had to conceal on a lossless link.
    /// Engine tick overruns are reported beside it: a tick that runs long because many
    /// devices delivered at once is not by itself a late frame.
    var total: UInt64 { underruns + overflows + concealed + late }

    static func snapshot(_ calls: [LoopbackCall], engine: MediaEngine) -> LateFrames {
        var f = LateFrames()
        f.overruns = engine.stats.overruns
        for c in calls {
            for s in [c.a.stats, c.b.stats] {
                f.underruns += s.renderUnderruns
                f.overflows += s.captureOverflows
                f.concealed += UInt64(s.jitterBuffer.concealedFrames)
                f.late += UInt64(s.jitterBuffer.late)
            }
        }
        return f
    }

    static func - (a: LateFrames, b: LateFrames) -> LateFrames {
        LateFrames(
            overruns: a.overruns - b.overruns, underruns: a.underruns - b.underruns,
            overflows: a.overflows - b.overflows, concealed: a.concealed - b.concealed, late: a.late - b.late)
    }
}

/// `max_realtime_streams`: the most stream endpoints one process keeps in real time with no late
/// frames, trying counts in steps.
struct CapacityBenchmark {
    let settings: OpusSettings
    let maxEndpoints: Int
    let step: Int
    let seconds: Double

    func run() throws -> Int {
        let signal = TestSignals.speechLike(seconds: 10)
        var best = 0
        var endpoints = step
        while endpoints <= maxEndpoints {
            let late = try measure(endpoints: endpoints, signal: signal)
            print(
                "capacity: \(endpoints) endpoints: \(late.total) late frames (tick overruns \(late.overruns), underruns \(late.underruns), overflows \(late.overflows), concealed \(late.concealed), late \(late.late))"
            )
            flushOutput()
            if late.total > 0 { break }
            best = endpoints
            endpoints += step
        }
        return best
    }

    func measure(endpoints: Int, signal: [Int16]) throws -> LateFrames {
        let engine = MediaEngine()
        var calls: [LoopbackCall] = []
        defer { calls.forEach { $0.stop() } }
        for i in 0..<(endpoints / 2) {
            let shift = (i * 4_801) % signal.count
            let call = try LoopbackCall(
                codec: .opus(settings), signalA: Array(signal[shift...] + signal[..<shift]), signalB: signal,
                loop: true, record: false, engine: engine)
            try call.start()
            calls.append(call)
        }
        Thread.sleep(forTimeInterval: 2)
        let before = LateFrames.snapshot(calls, engine: engine)
        Thread.sleep(forTimeInterval: seconds)
        let after = LateFrames.snapshot(calls, engine: engine)
        return after - before
    }
}

/// `memory_per_stream_kib`: resident memory added per running stream endpoint.
struct MemoryBenchmark {
    let settings: OpusSettings
    let endpoints: Int

    struct Result {
        var endpoints: Int
        var totalKiB: Double
        var perEndpointKiB: Double { totalKiB / Double(endpoints) }
    }

    func run() throws -> Result {
        let signal = TestSignals.speechLike(seconds: 2)
        let engine = MediaEngine()
        // Warm up the process (engine threads, libraries, allocator arenas) with one call first.
        let warm = try LoopbackCall(codec: .opus(settings), signalA: signal, signalB: signal, loop: true, record: false, engine: engine)
        try warm.start()
        Thread.sleep(forTimeInterval: 1)
        let before = ProcessFigures.residentKiB()
        var calls: [LoopbackCall] = []
        for _ in 0..<(endpoints / 2) {
            let call = try LoopbackCall(codec: .opus(settings), signalA: signal, signalB: signal, loop: true, record: false, engine: engine)
            try call.start()
            calls.append(call)
        }
        Thread.sleep(forTimeInterval: 3)
        let after = ProcessFigures.residentKiB()
        calls.forEach { $0.stop() }
        warm.stop()
        return Result(endpoints: endpoints, totalKiB: after - before)
    }
}
