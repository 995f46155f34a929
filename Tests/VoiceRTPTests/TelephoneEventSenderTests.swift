import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class TelephoneEventSenderTests: XCTestCase {
    private func drain(_ sender: inout TelephoneEventSender) -> [TelephoneEventSender.Packet] {
        var packets: [TelephoneEventSender.Packet] = []
        while let packet = sender.tick() { packets.append(packet) }
        return packets
    }

    func testReproducesRFC4733Example() throws {
        // RFC 4733 §5 example: DTMF "9" at 8 kHz, one packet every 50 ms (400 units), 200 ms long:
        // durations 400, 800, 1200, 1600 with the marker on the first, then 1600 three times with E set,
        // every packet carrying the start timestamp 0.
        var sender = try TelephoneEventSender(digit: "9", startTimestamp: 0, packetInterval: 400, duration: 1600, volume: 7)
        let packets = drain(&sender)
        XCTAssertEqual(packets.map(\.event.duration), [400, 800, 1200, 1600, 1600, 1600, 1600])
        XCTAssertEqual(packets.map(\.event.isEnd), [false, false, false, false, true, true, true])
        XCTAssertEqual(packets.map(\.marker), [true, false, false, false, false, false, false])
        XCTAssertTrue(packets.allSatisfy { $0.timestamp == 0 && $0.event.event == 9 && $0.event.volume == 7 })
        XCTAssertTrue(sender.isFinished)
        XCTAssertNil(sender.tick())
    }

    func testDurationNotAMultipleOfInterval() throws {
        var sender = try TelephoneEventSender(event: 11, startTimestamp: 0xFFFF_FF00, packetInterval: 960, duration: 2000)
        let packets = drain(&sender)
        XCTAssertEqual(packets.map(\.event.duration), [960, 1920, 2000, 2000, 2000, 2000])
        XCTAssertEqual(packets.map(\.event.isEnd), [false, false, false, true, true, true])
        XCTAssertTrue(packets.allSatisfy { $0.timestamp == 0xFFFF_FF00 })
    }

    func testEventShorterThanOneInterval() throws {
        var sender = try TelephoneEventSender(digit: "#", startTimestamp: 5, packetInterval: 400, duration: 100)
        let packets = drain(&sender)
        XCTAssertEqual(packets.count, 4)
        XCTAssertEqual(
            packets[0],
            .init(
                marker: true, timestamp: 5,
                event: TelephoneEvent(event: 11, isEnd: false, volume: 10, duration: 100)))
        XCTAssertTrue(packets.dropFirst().allSatisfy { $0.event.isEnd && $0.event.duration == 100 && !$0.marker })
    }

    func testMaximumDurationDoesNotOverflow() throws {
        var sender = try TelephoneEventSender(event: 1, startTimestamp: 0, packetInterval: 40000, duration: 65535)
        XCTAssertEqual(drain(&sender).map(\.event.duration), [40000, 65535, 65535, 65535, 65535])
    }

    func testInvalidConfigurationThrows() {
        XCTAssertThrowsError(try TelephoneEventSender(digit: "x", startTimestamp: 0, packetInterval: 400, duration: 800)) {
            XCTAssertEqual($0 as? TelephoneEventError, .unknownDigit)
        }
        XCTAssertThrowsError(try TelephoneEventSender(event: 1, startTimestamp: 0, packetInterval: 0, duration: 800)) {
            XCTAssertEqual($0 as? TelephoneEventError, .invalidTiming)
        }
        XCTAssertThrowsError(try TelephoneEventSender(event: 1, startTimestamp: 0, packetInterval: 400, duration: 0)) {
            XCTAssertEqual($0 as? TelephoneEventError, .invalidTiming)
        }
        XCTAssertThrowsError(try TelephoneEventSender(event: 1, startTimestamp: 0, packetInterval: 400, duration: 800, volume: 64)) {
            XCTAssertEqual($0 as? TelephoneEventError, .volumeOutOfRange)
        }
    }

    func testPacketsSerializeIntoRTP() throws {
        var sender = try TelephoneEventSender(digit: "1", startTimestamp: 7040, packetInterval: 400, duration: 400)
        let first = try XCTUnwrap(sender.tick())
        var buffer = [UInt8](repeating: 0, count: 16)
        let length = try buffer.withUnsafeMutableBytes { raw -> Int in
            let header = RTPHeader.writeMinimal(
                marker: first.marker, payloadType: 101, sequenceNumber: 8,
                timestamp: first.timestamp, ssrc: 1, into: raw)
            return header + (try first.event.write(into: UnsafeMutableRawBufferPointer(rebasing: raw[header...])))
        }
        XCTAssertEqual(length, 16)
        let packet = try RTPPacket(parsing: buffer)
        XCTAssertTrue(packet.header.marker)
        XCTAssertEqual(packet.header.timestamp, 7040)
        XCTAssertEqual(try TelephoneEvent(parsing: packet.payload), TelephoneEvent(event: 1, volume: 10, duration: 400))
    }
}
