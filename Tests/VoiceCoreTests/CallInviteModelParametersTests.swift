import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallInviteModelParametersTests: XCTestCase {
    func testSeedExample() throws {
        XCTAssertEqual(
            try CallInviteCustomParameters.parse("caller_first_name=alice&caller_last_name=smith"),
            ["caller_first_name": "alice", "caller_last_name": "smith"])
    }

    func testValuesDecodedNamesNot() throws {
        let rows: [(String, [String: String])] = [
            ("", [:]),
            ("a=1", ["a": "1"]),
            ("a%20b=c%20d", ["a%20b": "c d"]),
            ("n=%E2%98%8E&m=50%25", ["n": "☎", "m": "50%"]),
            ("phone=+14155550101", ["phone": "+14155550101"]),
            ("a=1&&b=2&", ["a": "1", "b": "2"]),
            ("flag", ["flag": ""]),
            ("a=", ["a": ""]),
            ("a=x=y", ["a": "x=y"]),
            ("a=1&a=2", ["a": "2"]),
            ("名前=%E5%80%A4", ["名前": "値"]),
        ]
        for (query, expected) in rows {
            XCTAssertEqual(try CallInviteCustomParameters.parse(query), expected, query)
        }
    }

    func testMalformed() {
        let rows: [(String, String)] = [
            ("=1", "empty name"),
            ("a=1&=2", "empty name later"),
            ("a=%", "bare percent"),
            ("a=%4", "short escape"),
            ("a=%GG", "non-hex escape"),
            ("a=%FF", "not UTF-8"),
            (String(repeating: "a", count: 16_385), "too long"),
            ((0..<257).map { "k\($0)=v" }.joined(separator: "&"), "too many"),
        ]
        for (query, label) in rows {
            XCTAssertThrowsError(try CallInviteCustomParameters.parse(query), label) { error in
                XCTAssertEqual((error as? VoiceError)?.code, .malformedRequest, label)
            }
        }
    }

    func testFromPayload() throws {
        XCTAssertEqual(try CallInviteCustomParameters.parse(payload: ["twi_params": "x=%31"]), ["x": "1"])
        XCTAssertEqual(try CallInviteCustomParameters.parse(payload: ["twi_from": "client:alice"]), [:])
    }

    func testNotificationPayload() throws {
        let payload = [
            "twi_message_type": "twilio.voice.call", "twi_call_sid": "CA0123456789abcdef0123456789abcdef",
            "twi_from": "client:alice", "twi_to": "client:bob", "twi_params": "customer=42",
        ]
        let notification = try XCTUnwrap(try CallInviteNotification(payload: payload))
        XCTAssertEqual(notification.kind, .call)
        XCTAssertEqual(notification.callSid.rawValue, "CA0123456789abcdef0123456789abcdef")
        XCTAssertEqual(notification.from, "client:alice")
        XCTAssertEqual(notification.to, "client:bob")
        XCTAssertEqual(notification.customParameters, ["customer": "42"])

        var cancel = payload
        cancel["twi_message_type"] = "twilio.voice.cancel"
        XCTAssertEqual(try CallInviteNotification(payload: cancel)?.kind, .cancel)

        XCTAssertNil(try CallInviteNotification(payload: ["aps": "x"]))
        XCTAssertNil(try CallInviteNotification(payload: ["twi_message_type": "twilio.other"]))

        var noSid = payload
        noSid["twi_call_sid"] = "CA12"
        XCTAssertThrowsError(try CallInviteNotification(payload: noSid))
        var badParams = payload
        badParams["twi_params"] = "a=%"
        XCTAssertThrowsError(try CallInviteNotification(payload: badParams))
    }

    func testRandomInputNeverCrashes() {
        for text in Self.randomInputs(count: 3000, alphabet: "a=&%2F0gé+ ", seed: 3) {
            do {
                _ = try CallInviteCustomParameters.parse(text)
            } catch {
                XCTAssertEqual(error.code, .malformedRequest, text)
            }
        }
    }

    /// Deterministic pseudo-random strings over an alphabet that favours the parser's delimiters.
    private static func randomInputs(count: Int, alphabet: String, seed: UInt64) -> [String] {
        var state = seed
        let characters = Array(alphabet)
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 58)
            return String((0..<length).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return characters[Int(state >> 33) % characters.count]
            })
        }
    }
}
