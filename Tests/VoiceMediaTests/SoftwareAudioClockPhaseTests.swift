import VoiceTestKit
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
        // A manual clock, ticked here: tick k falls at k × 2 ms and is of phase k mod 4.
        let period = MediaTime.milliseconds(2)
        let clock = SoftwareAudioClock(manualPeriod: period, phases: 4, name: "test-phase-clk")
        let capture = FirstTickClient()
        let render = FirstTickClient()
        let other = FirstTickClient()
        let registrations = [
            try clock.register(capture, phase: 1), try clock.register(render, phase: 5),  // 5 is phase 1 too
            try clock.register(other, phase: 3),
        ]
        defer { registrations.forEach(clock.unregister) }
        for k in 0..<20 { clock.tick(at: MediaTime(nanoseconds: Int64(k) * period.nanoseconds)) }
        XCTAssertEqual(capture.all.first, .milliseconds(2), "phase 1: the second tick")
        XCTAssertEqual(render.all.first, .milliseconds(2), "the same phase, the same tick")
        XCTAssertEqual(other.all.first, .milliseconds(6), "phase 3: two ticks later")
        // Once started, a client gets every tick: consecutive ticks of the clock's timeline.
        for client in [capture, render, other] {
            let ticks = client.all
            XCTAssertEqual(ticks.count, 20 - Int(ticks[0].nanoseconds / period.nanoseconds))
            for (a, b) in zip(ticks, ticks.dropFirst()) { XCTAssertEqual(b - a, period, "ticks \(a) and \(b)") }
        }
    }

    func testADevicesCaptureAndRenderShareAPhaseAndTheNextDeviceTakesAnother() throws {
        // 10 ms ticks and four phases, ticked here: devices 0 and 1 take phases 0 and 2 (20 ms
        // apart), and one device's two directions start on the same tick.
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), phases: 4, name: "test-phase-clk")
        let time = ManualMediaClock()
        let pacing = SoftwareAudioPacing.ticked(by: clock)
        let devices = [BufferAudioDevice(pacing: pacing), BufferAudioDevice(pacing: pacing)]
        let contexts = [FirstCallContext(clock: time), FirstCallContext(clock: time)]
        for (device, context) in zip(devices, contexts) {
            try device.startCapturing(context: context)
            try device.startRendering(context: context)
        }
        defer { devices.forEach { $0.stopCapturing(); $0.stopRendering() } }
        for k in 0..<8 {
            time.set(to: .milliseconds(Int64(10 * k)))
            clock.tick(at: time.now())
        }
        XCTAssertTrue(contexts.allSatisfy(\.started))
        let times = contexts.map(\.firstCalls)
        for (capture, render) in times { XCTAssertEqual(capture, render, "one device, one phase, one tick") }
        XCTAssertEqual(times[0].capture, .zero, "device 0: phase 0")
        XCTAssertEqual(times[1].capture, .milliseconds(20), "device 1: phase 2, 20 ms later")
    }
}

/// Records when capture and render were first called.
final class FirstCallContext: AudioDeviceContext, Sendable {
    private let first = Locked<(capture: MediaTime?, render: MediaTime?)>((nil, nil))
    private let clock: any MediaClock

    init(clock: any MediaClock) { self.clock = clock }

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
