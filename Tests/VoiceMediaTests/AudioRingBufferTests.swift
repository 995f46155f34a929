import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class AudioRingBufferTests: XCTestCase {
    func testCapacityRoundsUpToPowerOfTwo() {
        XCTAssertEqual(AudioRingBuffer(minimumCapacity: 1_000).capacity, 1_024)
        XCTAssertEqual(AudioRingBuffer(minimumCapacity: 1_024).capacity, 1_024)
    }

    func testWrapsAroundAndKeepsOrder() {
        let ring = AudioRingBuffer(minimumCapacity: 8)
        var out = [Int16](repeating: 0, count: 8)
        var next: Int16 = 0
        var expected: Int16 = 0
        for _ in 0..<20 {
            let chunk = (0..<5).map { _ -> Int16 in
                defer { next += 1 }; return next
            }
            XCTAssertEqual(chunk.withUnsafeBufferPointer { ring.write($0) }, 5)
            let n = out.withUnsafeMutableBufferPointer { ring.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<5])) }
            XCTAssertEqual(n, 5)
            for v in out[0..<5] {
                XCTAssertEqual(v, expected)
                expected += 1
            }
        }
    }

    func testOverflowWritesWhatFitsAndUnderflowReadsWhatIsThere() {
        let ring = AudioRingBuffer(minimumCapacity: 8)
        let ten = [Int16](repeating: 7, count: 10)
        XCTAssertEqual(ten.withUnsafeBufferPointer { ring.write($0) }, 8)
        XCTAssertEqual(ring.availableToWrite, 0)
        var out = [Int16](repeating: 0, count: 12)
        XCTAssertEqual(out.withUnsafeMutableBufferPointer { ring.read(into: $0) }, 8)
        XCTAssertEqual(ring.availableToRead, 0)
        XCTAssertEqual(ring.writeSilence(3), 3)
        XCTAssertEqual(ring.discard(10), 3)
    }

    func testConcurrentProducerAndConsumerSeeEverySampleInOrder() {
        let ring = AudioRingBuffer(minimumCapacity: 256)
        let total = 200_000
        let producer = Thread {
            var value: Int16 = 0
            var chunk = [Int16](repeating: 0, count: 37)
            var sent = 0
            while sent < total {
                let n = min(chunk.count, total - sent)
                for i in 0..<n { chunk[i] = value &+ Int16(truncatingIfNeeded: i) }
                var offset = 0
                while offset < n {
                    offset += chunk.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[offset..<n])) }
                }
                value = value &+ Int16(truncatingIfNeeded: n)
                sent += n
            }
        }
        producer.start()
        var expected: Int16 = 0
        var received = 0
        var out = [Int16](repeating: 0, count: 53)
        let deadline = Date().addingTimeInterval(10)
        while received < total, Date() < deadline {
            let n = out.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            for v in out[0..<n] {
                if v != expected { return XCTFail("sample \(received): \(v) != \(expected)") }
                expected = expected &+ 1
                received += 1
            }
        }
        XCTAssertEqual(received, total)
    }
}
