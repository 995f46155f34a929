import Dispatch
import Glibc
import XCTest

@testable import VoiceMedia

/// A device's two directions fail from their own threads, often at the same instant (a sound
/// server that dies takes both): the stream counts one interruption, not one per direction.
final class StreamControlInterruptionTests: XCTestCase {
    func testBothDirectionsFailingAtOnceCountOneInterruption() {
        let control = StreamControl(events: StreamEvents(delivery: .inline, capacity: 4))
        let rounds = 30_000  // The unguarded check-then-set lost about one round in 6,000 here.
        for round in 1...rounds {
            let start = DispatchGroup(), done = DispatchGroup()
            let gate = DispatchSemaphore(value: 0)
            for capture in [true, false] {
                start.enter()
                done.enter()
                DispatchQueue.global().async {
                    start.leave()
                    gate.wait()
                    control.record(.interrupted(capture: capture, AudioDeviceError(kind: .ioFailed, code: -ENODEV, message: "gone")))
                    done.leave()
                }
            }
            start.wait()
            gate.signal()
            gate.signal()
            done.wait()
            XCTAssertTrue(control.isInterrupted)
            XCTAssertEqual(control.deviceInterruptions.load(ordering: .relaxed), UInt64(round), "round \(round)")
            control.record(.resumed(capture: true))
            XCTAssertTrue(control.isInterrupted, "render is still out")
            control.record(.resumed(capture: false))
            XCTAssertFalse(control.isInterrupted)
            if control.deviceInterruptions.load(ordering: .relaxed) != UInt64(round) { break }
        }
    }
}
