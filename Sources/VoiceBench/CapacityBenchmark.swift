import Foundation
import VoiceSupport
import VoiceMedia
import VoiceTestKit
import VoiceTestAudio
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

    /// What happened between snapshot `b` and snapshot `a`, per figure; a figure that went
    /// down (a call whose stats were gone by the later snapshot) counts as 0, not as a trap.
    static func - (a: LateFrames, b: LateFrames) -> LateFrames {
        func delta<T: FixedWidthInteger>(_ x: T, _ y: T) -> T { x >= y ? x - y : 0 }
        return LateFrames(
            overruns: delta(a.overruns, b.overruns), underruns: delta(a.underruns, b.underruns),
            overflows: delta(a.overflows, b.overflows), concealed: delta(a.concealed, b.concealed), late: delta(a.late, b.late))
    }

    static func + (a: LateFrames, b: LateFrames) -> LateFrames {
        LateFrames(
            overruns: a.overruns + b.overruns, underruns: a.underruns + b.underruns,
            overflows: a.overflows + b.overflows, concealed: a.concealed + b.concealed, late: a.late + b.late)
    }
}

/// `max_realtime_streams`: the most stream endpoints one process keeps in real time with no late
/// frames. Counts go up by `step` until one has late frames, then the gap below it is searched
/// by `fineStep`. The calls run on buffer devices paced by the shared software clock (what a
/// server uses: no sound card), SRTP and Opus at the given settings, on loopback.
struct CapacityBenchmark {
    let settings: OpusSettings
    let maxEndpoints: Int
    let step: Int
    var fineStep = 10
    let seconds: Double

    struct Measurement {
        var endpoints: Int
        var late: LateFrames
        /// The process's CPU use over the window, as a fraction of all cores.
        var cpuUtilization: Double
    }

    struct Result {
        var endpoints: Int
        /// The measurement at the capacity (nil when even the first count had late frames).
        var atCapacity: Measurement?
    }

    func run() throws -> Result {
        let signal = TestSignals.speechLike(seconds: 10)
        var best: Measurement?
        var endpoints = step
        var failed: Int?
        while endpoints <= maxEndpoints {
            let m = try measure(endpoints: endpoints, signal: signal)
            report(m)
            if m.late.total > 0 {
                failed = endpoints
                break
            }
            best = m
            endpoints += step
        }
        if let failed, fineStep < step {
            var fine = (best?.endpoints ?? 0) + fineStep
            while fine < failed {
                let m = try measure(endpoints: fine, signal: signal)
                report(m)
                if m.late.total > 0 { break }
                best = m
                fine += fineStep
            }
        }
        return Result(endpoints: best?.endpoints ?? 0, atCapacity: best)
    }

    private func report(_ m: Measurement) {
        let late = m.late
        print(
            String(
                format: "capacity: %d endpoints: %d late frames (tick overruns %d, underruns %d, overflows %d, concealed %d, late %d), CPU %.0f%% of %d cores",
                m.endpoints, late.total, late.overruns, late.underruns, late.overflows, late.concealed, late.late,
                m.cpuUtilization * 100, ProcessInfo.processInfo.activeProcessorCount))
        flushOutput()
    }

    func measure(endpoints: Int, signal: [Int16]) throws -> Measurement {
        let engine = MediaEngine()
        var calls: [LoopbackCall] = []
        defer { calls.forEach { $0.stop() } }
        for i in 0..<(endpoints / 2) {
            let shift = (i * 4_801) % signal.count
            // The suite two of our clients negotiate (the first one an offer lists).
            let call = try LoopbackCall(
                codec: .opus(settings), suite: SRTPSuite.preferredOrder[0],
                signalA: Array(signal[shift...] + signal[..<shift]), signalB: signal,
                loop: true, record: false, engine: engine)
            try call.start()
            calls.append(call)
        }
        Thread.sleep(forTimeInterval: 2)
        let before = LateFrames.snapshot(calls, engine: engine)
        let cpu0 = ProcessFigures.cpuSeconds()
        let wall0 = Date()
        Thread.sleep(forTimeInterval: seconds)
        let cpu1 = ProcessFigures.cpuSeconds()
        let wall = Date().timeIntervalSince(wall0)
        let after = LateFrames.snapshot(calls, engine: engine)
        let utilization = (cpu1 - cpu0) / wall / Double(ProcessInfo.processInfo.activeProcessorCount)
        return Measurement(endpoints: endpoints, late: after - before, cpuUtilization: utilization)
    }
}

/// One thread's contexts, handed to it once and used only there.
struct UncheckedOpusContexts: @unchecked Sendable {
    let contexts: [BareOpusContext]
}

/// `opus_bound_endpoints`: how many stream endpoints the machine could carry if it did nothing
/// but libopus: one encode and one decode per endpoint every 20 ms, at the benchmark's
/// settings, on every core at once (cores share caches and memory bandwidth, so one core's
/// figure alone would flatter the bound).
struct OpusBoundBenchmark {
    let settings: OpusSettings
    /// Encoder/decoder pairs per thread: many, as in a loaded process, so caches are as cold.
    var contextsPerThread = 50
    var seconds = 3.0

    struct Result {
        /// Encode + decode of one 20 ms frame, on one thread alone.
        var singleThreadMicroseconds: Double
        /// The same with every core running it at once.
        var allCoresMicroseconds: Double
        var cores: Int
        /// cores × 20 ms ÷ the all-cores cost.
        var boundEndpoints: Double { Double(cores) * 20_000 / allCoresMicroseconds }
    }

    func run() throws -> Result {
        let signal = TestSignals.speechLike(seconds: 10)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let single = try perFrame(threads: 1, signal: signal)
        let all = try perFrame(threads: cores, signal: signal)
        return Result(singleThreadMicroseconds: single, allCoresMicroseconds: all, cores: cores)
    }

    /// Runs `threads` threads flat out for `seconds`, each cycling over its own contexts; the
    /// thread CPU time per frame, averaged over the threads.
    private func perFrame(threads: Int, signal: [Int16]) throws -> Double {
        let results = Locked<[Double]>([])
        let group = DispatchGroup()
        let contexts = try (0..<threads).map { _ in try (0..<contextsPerThread).map { _ in try BareOpusContext(settings: settings) } }
        for t in 0..<threads {
            let mine = UncheckedOpusContexts(contexts: contexts[t])
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let frameCount = signal.count / 960
                var packet = [UInt8](repeating: 0, count: 1_500)
                var pcm = [Int16](repeating: 0, count: 960)
                let start = ProcessFigures.threadCPUSeconds()
                let until = Date().addingTimeInterval(seconds)
                var frames = 0
                var tick = 0
                while Date() < until {
                    for (i, ctx) in mine.contexts.enumerated() {
                        let offset = ((tick + i * 7) % frameCount) * 960
                        signal.withUnsafeBufferPointer { s in
                            guard let base = s.baseAddress else { return }
                            ctx.process(base + offset, packet: &packet, pcm: &pcm)
                        }
                        frames += 1
                    }
                    tick += 1
                }
                let spent = ProcessFigures.threadCPUSeconds() - start
                results.withLock { $0.append(spent / Double(max(1, frames)) * 1e6) }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        let figures = results.withLock { $0 }
        return figures.reduce(0, +) / Double(max(1, figures.count))
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
