import VoiceEmbedded
import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

/// Staggered start phases on the software clock: devices on one clock must not all deliver and
/// pull in the same instant, or every stream's codec work lands on the same engine tick.
final class SoftwareAudioClockPhaseTests: XCTestCase {
    func testPhasesAreSpreadOverAllDevicesAndOverEveryWorkersShare() {
        let clock = SoftwareAudioClock(period: .milliseconds(5), phases: 4, name: "test-phase-clk")
        let phases = (0..<200).compactMap { _ in clock.nextPhase() }
        XCTAssertEqual(phases.count, 200)
        XCTAssert(phases.allSatisfy { (0..<4).contains($0) })
        // Workers take devices in turn, so a worker of two holds every second device, a worker of
        // four every fourth: each such share must cover every phase about evenly, not bunch up
        // (a plain round-robin gives a worker of two only two of the four phases).
        for workers in [1, 2, 4] {
            for worker in 0..<workers {
                let share = phases.enumerated().filter { $0.offset % workers == worker }.map(\.element)
                let fair = Double(share.count) / 4
                for phase in 0..<4 {
                    let count = share.filter { $0 == phase }.count
                    XCTAssertGreaterThanOrEqual(
                        Double(count), 0.6 * fair, "phase \(phase) in worker \(worker) of \(workers): \(count) of \(share.count)")
                }
            }
        }
        XCTAssertNil(SoftwareAudioClock(period: .milliseconds(10), name: "test-phase-clk").nextPhase(), "one phase: no stagger")
    }

    final class FirstTickClient: SoftwareAudioClockClient {
        let ticks = Locked<[MediaTime]>([])
        func clockDidTick(at time: MediaTime) { ticks.withLock { $0.append(time) } }
        var all: [MediaTime] { ticks.withLock { $0 } }
    }

    func testClientsOfOnePhaseStartOnOneTickAndOtherPhasesOnOthers() throws {
        let period = MediaTime.milliseconds(2)
        let clock = SoftwareAudioClock(period: period, phases: 4, name: "test-phase-clk")
        let capture = FirstTickClient()
        let render = FirstTickClient()
        let other = FirstTickClient()
        let registrations = [
            try clock.register(capture, phase: 1), try clock.register(render, phase: 5),  // 5 is phase 1 too
            try clock.register(other, phase: 3),
        ]
        defer { registrations.forEach(clock.unregister) }
        XCTAssertTrue(PollingWait.until(timeout: 10) { [capture, render, other].allSatisfy { $0.all.count >= 5 } })
        // Registering is not atomic with the clock's ticks (a tick of phase 1 may come between
        // two registrations), so "same phase" is: first ticks a whole number of cycles apart.
        let first = [capture, render, other].map { $0.all[0] }
        XCTAssertEqual(Self.phaseOffset(first[1], from: first[0], period: period, phases: 4), 0, "same phase, same tick of the cycle")
        XCTAssertEqual(Self.phaseOffset(first[2], from: first[0], period: period, phases: 4), 2, "two phases apart, two ticks apart")
        // Once started, a client gets every tick: consecutive ticks of the clock's timeline.
        for client in [capture, render, other] {
            let ticks = client.all
            for (a, b) in zip(ticks, ticks.dropFirst()) {
                XCTAssert(b - a == period || (b - a).nanoseconds > period.nanoseconds * 10, "ticks \(a) and \(b): a tick was skipped")
            }
        }
    }

    /// Ticks from `a` to `b` modulo the cycle of `phases` ticks; nil if they are not on one grid
    /// (a stall restarted the clock's timeline in between).
    static func phaseOffset(_ b: MediaTime, from a: MediaTime, period: MediaTime, phases: Int64) -> Int64? {
        let apart = (b - a).nanoseconds
        guard apart % period.nanoseconds == 0 else { return nil }
        let ticks = apart / period.nanoseconds
        return ((ticks % phases) + phases) % phases
    }

    func testADevicesCaptureAndRenderShareAPhaseAndTheNextDeviceTakesAnother() throws {
        // 10 ms ticks and four phases: devices 0 and 1 take phases 0 and 2 (20 ms apart), while
        // one device's two directions are ticked back to back in the same tick.
        let pacing = SoftwareAudioPacing.ticked(
            by: SoftwareAudioClock(period: .milliseconds(10), phases: 4, name: "test-phase-clk"))
        let devices = [BufferAudioDevice(pacing: pacing), BufferAudioDevice(pacing: pacing)]
        let contexts = [FirstCallContext(), FirstCallContext()]
        for (device, context) in zip(devices, contexts) {
            try device.startCapturing(context: context)
            try device.startRendering(context: context)
        }
        defer { devices.forEach { $0.stopCapturing(); $0.stopRendering() } }
        XCTAssertTrue(PollingWait.until(timeout: 10) { contexts.allSatisfy { $0.started } })
        // Measured on the test's clock, not the tick's: within 4 ms of a whole 40 ms cycle apart
        // is the same phase (a phase tick may fall between the two directions' registrations).
        func offset(_ b: MediaTime, _ a: MediaTime) -> Int64 {
            let cycle = MediaTime.milliseconds(40).nanoseconds
            return (((b - a).nanoseconds % cycle) + cycle) % cycle
        }
        let near = MediaTime.milliseconds(4).nanoseconds
        let times = contexts.map { $0.firstCalls }
        for (capture, render) in times {
            let apart = offset(render, capture)
            XCTAssert(apart < near || apart > MediaTime.milliseconds(40).nanoseconds - near, "one device, one phase: \(apart) ns")
        }
        let apart = offset(times[1].capture, times[0].capture)
        XCTAssert(abs(apart - MediaTime.milliseconds(20).nanoseconds) < near, "devices 0 and 1: phases 0 and 2, 20 ms apart: \(apart) ns")
    }
}

/// Records when capture and render were first called.
final class FirstCallContext: AudioDeviceContext, Sendable {
    private let first = Locked<(capture: MediaTime?, render: MediaTime?)>((nil, nil))
    private let clock = MonotonicMediaClock()

    var started: Bool { first.withLock { $0.capture != nil && $0.render != nil } }
    var firstCalls: (capture: MediaTime, render: MediaTime) { first.withLock { ($0.capture ?? .zero, $0.render ?? .zero) } }

    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
        let now = clock.now()
        first.withLock { if $0.capture == nil { $0.capture = now } }
    }
    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
        samples.update(repeating: 0)
        let now = clock.now()
        first.withLock { if $0.render == nil { $0.render = now } }
    }
    func audioDevice(didReport event: AudioDeviceEvent) {}
}
