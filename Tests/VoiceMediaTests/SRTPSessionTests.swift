import CLibSRTP
import VoiceBytes
import VoiceTestKit
import XCTest
@testable import VoiceMedia
import VoiceRTP
import VoiceTestAudio
import VoiceMediaTypes
import VoiceSupport

final class SRTPSessionTests: XCTestCase {
    /// A deterministic generator so failures reproduce (key quality is irrelevant here).
    private var generator = SplitMix64(seed: 42)

    private func keys(_ suite: SRTPSuite) -> SRTPKeyMaterial {
        SRTPKeyMaterial.random(for: suite, using: &generator)
    }

    /// An RTP packet: version 2, payload type 111, the given sequence number, SSRC 0x11223344.
    private func rtpPacket(sequence: UInt16, payloadLength: Int = 40) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: 12 + payloadLength)
        packet.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            try? writer.write(UInt8(0x80))
            try? writer.write(UInt8(111))
            try? writer.write(sequence)
            try? writer.write(UInt32(960) &* UInt32(sequence))
            try? writer.write(UInt32(0x1122_3344))
        }
        for i in 12..<packet.count { packet[i] = UInt8(truncatingIfNeeded: i &* 7 &+ Int(sequence)) }
        return packet
    }

    /// An RTCP receiver report with one report block (32 bytes).
    private func rtcpPacket() -> [UInt8] {
        SRTPTestSupport.bytes("81c90007 11223344 55667788 00000001 00001234 00000010 00000000 00000000")
    }

    /// Copies `packet` to the start of a buffer with room for any trailer, at a non-zero offset
    /// inside a larger allocation, runs `body` over it and returns the bytes it reports.
    private func process(
        _ packet: [UInt8], _ body: (UnsafeMutableRawBufferPointer, Int) throws(SRTPError) -> Int
    ) throws(SRTPError) -> [UInt8] {
        var storage = [UInt8](repeating: 0xEE, count: 3 + packet.count + SRTPSession.maxTrailerLength)
        storage.replaceSubrange(3..<3 + packet.count, with: packet)
        let result: Result<Int, SRTPError> = storage.withUnsafeMutableBytes { raw in
            let buffer = UnsafeMutableRawBufferPointer(rebasing: raw[3...])
            do throws(SRTPError) { return .success(try body(buffer, packet.count)) } catch { return .failure(error) }
        }
        let length = try result.get()
        return Array(storage[3..<3 + length])
    }

    private func assertThrows(
        _ expected: SRTPError, file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            XCTFail("expected \(expected), nothing thrown", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? SRTPError, expected, file: file, line: line)
        }
    }

    // MARK: Round trips

    func testRTPAndRTCPRoundTripForEverySuite() throws {
        for suite in SRTPSuite.allCases {
            guard suite.isAvailable else { continue }
            let a = keys(suite), b = keys(suite)
            let alice = try SRTPSession(outbound: a, inbound: b)
            let bob = try SRTPSession(outbound: b, inbound: a)

            for sequence in UInt16(100)..<110 {
                let plain = rtpPacket(sequence: sequence)
                let protected = try process(plain, alice.protectRTP)
                XCTAssertEqual(protected.count, plain.count + suite.authTagLength, "\(suite)")
                XCTAssertEqual(Array(protected.prefix(12)), Array(plain.prefix(12)), "\(suite): header stays clear")
                XCTAssertNotEqual(Array(protected[12..<plain.count]), Array(plain[12...]), "\(suite): payload encrypted")
                XCTAssertEqual(try process(protected, bob.unprotectRTP), plain, "\(suite)")
            }

            let report = rtcpPacket()
            let srtcp = try process(report, bob.protectRTCP)
            XCTAssertEqual(srtcp.count, report.count + 4 + suite.rtcpAuthTagLength, "\(suite)")
            XCTAssertEqual(try process(srtcp, alice.unprotectRTCP), report, "\(suite)")

            XCTAssertEqual(alice.stats.rtpPacketsProtected, 10)
            XCTAssertEqual(bob.stats.rtpPacketsUnprotected, 10)
            XCTAssertEqual(bob.stats.rtcpPacketsProtected, 1)
            XCTAssertEqual(alice.stats.rtcpPacketsUnprotected, 1)
            XCTAssertEqual(bob.stats.rejectedPackets, 0)
        }
    }

    func testEverySuiteIsAvailableInThisBuild() {
        // libsrtp here is built with NSS: GCM and AES-256 must work.
        XCTAssertEqual(Set(SRTPSuite.available), Set(SRTPSuite.allCases))
    }

    func testSessionWithDifferentSuitesPerDirection() throws {
        let out = keys(.aeadAES256GCM), back = keys(.aesCM128HmacSHA1_32)
        let alice = try SRTPSession(outbound: out, inbound: back)
        let bob = try SRTPSession(outbound: back, inbound: out)
        XCTAssertEqual(alice.rtpTrailerLength, 16)
        XCTAssertEqual(bob.rtpTrailerLength, 4)
        XCTAssertEqual(bob.rtcpTrailerLength, 14, "SRTCP keeps the 80-bit tag")
        let plain = rtpPacket(sequence: 1)
        XCTAssertEqual(try process(try process(plain, alice.protectRTP), bob.unprotectRTP), plain)
        XCTAssertEqual(try process(try process(plain, bob.protectRTP), alice.unprotectRTP), plain)
    }

    // MARK: Rejections

    func testWrongKeyIsAuthFailureAndReturnsNoPlaintext() throws {
        for suite in SRTPSuite.available {
            let sender = try SRTPSession(outbound: keys(suite), inbound: keys(suite))
            let receiver = try SRTPSession(outbound: keys(suite), inbound: keys(suite))
            let plain = rtpPacket(sequence: 7)
            let protected = try process(plain, sender.protectRTP)

            var buffer = protected + [UInt8](repeating: 0, count: 16)
            let result: Result<Int, SRTPError> = buffer.withUnsafeMutableBytes { raw in
                do throws(SRTPError) { return .success(try receiver.unprotectRTP(raw, length: protected.count)) } catch {
                    return .failure(error)
                }
            }
            XCTAssertEqual(result, .failure(.authFail), "\(suite)")
            XCTAssertNotEqual(Array(buffer[12..<plain.count]), Array(plain[12...]), "\(suite): no plaintext written")
            XCTAssertEqual(receiver.stats.authenticationFailures, 1)
            XCTAssertEqual(receiver.stats.rtpPacketsUnprotected, 0)
        }
    }

    func testTamperedByteAnywhereIsAuthFailure() throws {
        let suite = SRTPSuite.aesCM128HmacSHA1_80
        let k = keys(suite)
        let sender = try SRTPSession(outbound: k, inbound: keys(suite))
        let receiver = try SRTPSession(outbound: keys(suite), inbound: k)
        let protected = try process(rtpPacket(sequence: 500), sender.protectRTP)
        // Header (sequence number), payload and tag.
        for position in [3, 20, protected.count - 1] {
            var tampered = protected
            tampered[position] ^= 0x01
            assertThrows(.authFail) { _ = try process(tampered, receiver.unprotectRTP) }
        }
        XCTAssertEqual(receiver.stats.authenticationFailures, 3)
        // The untampered packet still verifies afterwards: failures did not advance the window.
        XCTAssertEqual(try process(protected, receiver.unprotectRTP), rtpPacket(sequence: 500))
    }

    func testTamperedGCMPacketIsAuthFailure() throws {
        let k = keys(.aeadAES128GCM)
        let sender = try SRTPSession(outbound: k, inbound: k)
        let receiver = try SRTPSession(outbound: k, inbound: k)
        var protected = try process(rtpPacket(sequence: 9), sender.protectRTP)
        protected[15] ^= 0x80
        assertThrows(.authFail) { _ = try process(protected, receiver.unprotectRTP) }
        XCTAssertEqual(receiver.stats.authenticationFailures, 1)
    }

    func testReplayedPacketIsReplayFailure() throws {
        let k = keys(.aesCM128HmacSHA1_80)
        let sender = try SRTPSession(outbound: k, inbound: k)
        let receiver = try SRTPSession(outbound: k, inbound: k)
        let protected = try process(rtpPacket(sequence: 1000), sender.protectRTP)
        XCTAssertEqual(try process(protected, receiver.unprotectRTP), rtpPacket(sequence: 1000))
        assertThrows(.replayFail) { _ = try process(protected, receiver.unprotectRTP) }
        XCTAssertEqual(receiver.stats.replayFailures, 1)
        XCTAssertEqual(receiver.stats.rtpPacketsUnprotected, 1)
    }

    /// SRTP's rollover counter is not signaled: a receiver whose first packet comes after the
    /// sender's sequence number wrapped would guess it as 0 and reject every packet from then on
    /// (a call once lost all audio one way this way). The stream starts its sequence numbers
    /// below 2^15, as WebRTC does, and a receiver that missed 30,000 packets still decrypts; a
    /// receiver whose first packets fail tries rollover counter 1 once per packet until one
    /// authenticates, so a peer that started near 65535 is heard too.
    func testAReceiverThatMissedTheFirstPacketsDecryptsAfterTheSenderWrapped() throws {
        for suite in [SRTPSuite.aeadAES256GCM, .aesCM128HmacSHA1_80] {
            let k = keys(suite)
            let late = try SRTPSession(outbound: k, inbound: k)
            let sender = try SRTPSession(outbound: k, inbound: k)
            for sequence in UInt16(0xFFC0)...UInt16.max { _ = try process(rtpPacket(sequence: sequence), sender.protectRTP) }
            let afterWrap = try process(rtpPacket(sequence: 10), sender.protectRTP)
            let next = try process(rtpPacket(sequence: 11), sender.protectRTP)
            XCTAssertEqual(try process(afterWrap, late.unprotectRTP), rtpPacket(sequence: 10), "\(suite)")
            XCTAssertEqual(try process(next, late.unprotectRTP), rtpPacket(sequence: 11), "\(suite)")
            XCTAssertEqual(late.stats.rolloverRecoveries, 1, "\(suite)")
            XCTAssertEqual(late.stats.rtpPacketsUnprotected, 2, "\(suite)")
            XCTAssertEqual(late.stats.authenticationFailures, 0, "\(suite)")
            assertThrows(.replayFail) { _ = try process(next, late.unprotectRTP) }
        }

        let local = try SocketAddress(host: "127.0.0.1", port: 0)
        let first = (0..<1_000).map { _ in AudioStreamConfiguration(localAddress: local, encryption: .unencrypted).initialSequenceNumber }
        XCTAssertLessThanOrEqual(first.max() ?? .max, 0x7FFF, "the stream starts below 2^15")
        let k = keys(.aeadAES256GCM)
        let receiver = try SRTPSession(outbound: k, inbound: k)
        let fresh = try SRTPSession(outbound: k, inbound: k)
        let start = UInt16(0x7FFF)
        for sequence in start..<start + 30_000 { _ = try process(rtpPacket(sequence: sequence), fresh.protectRTP) }
        let thirtyThousandLater = try process(rtpPacket(sequence: start + 30_000), fresh.protectRTP)
        XCTAssertEqual(try process(thirtyThousandLater, receiver.unprotectRTP), rtpPacket(sequence: start + 30_000))
        XCTAssertEqual(receiver.stats.rolloverRecoveries, 0)
    }

    /// The second try is for a peer's first packets only: wrong keys stay wrong (and cost a
    /// second try only for the first 256 packets), and once a packet authenticated, a failure
    /// is a failure.
    func testTheRolloverTryNeitherAcceptsWrongKeysNorOutlivesTheFirstGoodPacket() throws {
        let k = keys(.aeadAES128GCM)
        let stranger = try SRTPSession(outbound: keys(.aeadAES128GCM), inbound: k)
        let receiver = try SRTPSession(outbound: k, inbound: k)
        for sequence in UInt16(1)...300 {
            let forged = try process(rtpPacket(sequence: sequence), stranger.protectRTP)
            assertThrows(.authFail) { _ = try process(forged, receiver.unprotectRTP) }
        }
        XCTAssertEqual(receiver.stats.authenticationFailures, 300)
        XCTAssertEqual(receiver.stats.rolloverRecoveries, 0)

        let sender = try SRTPSession(outbound: k, inbound: k)
        let good = try process(rtpPacket(sequence: 400), sender.protectRTP)
        XCTAssertEqual(try process(good, receiver.unprotectRTP), rtpPacket(sequence: 400))
        var tampered = try process(rtpPacket(sequence: 401), sender.protectRTP)
        tampered[20] ^= 1
        assertThrows(.authFail) { _ = try process(tampered, receiver.unprotectRTP) }
        XCTAssertEqual(receiver.stats.rolloverRecoveries, 0)
    }

    func testPacketOlderThanReplayWindowIsRejected() throws {
        let k = keys(.aesCM128HmacSHA1_80)
        let sender = try SRTPSession(outbound: k, inbound: k)
        let receiver = try SRTPSession(outbound: k, inbound: k, configuration: .init(replayWindowSize: 64))
        let old = try process(rtpPacket(sequence: 100), sender.protectRTP)
        let inWindow = try process(rtpPacket(sequence: 150), sender.protectRTP)
        let new = try process(rtpPacket(sequence: 200), sender.protectRTP)
        _ = try process(new, receiver.unprotectRTP)
        // 150 is 50 behind 200: inside a 64-packet window, accepted out of order.
        XCTAssertEqual(try process(inWindow, receiver.unprotectRTP), rtpPacket(sequence: 150))
        // 100 is 100 behind: outside the window.
        assertThrows(.replayOld) { _ = try process(old, receiver.unprotectRTP) }
        XCTAssertEqual(receiver.stats.replayFailures, 1)
    }

    func testSRTCPTamperAndReplayAreRejected() throws {
        let k = keys(.aesCM128HmacSHA1_32)
        let sender = try SRTPSession(outbound: k, inbound: k)
        let receiver = try SRTPSession(outbound: k, inbound: k)
        let srtcp = try process(rtcpPacket(), sender.protectRTCP)
        var tampered = srtcp
        tampered[10] ^= 0x04
        assertThrows(.authFail) { _ = try process(tampered, receiver.unprotectRTCP) }
        XCTAssertEqual(try process(srtcp, receiver.unprotectRTCP), rtcpPacket())
        assertThrows(.replayFail) { _ = try process(srtcp, receiver.unprotectRTCP) }
        XCTAssertEqual(receiver.stats.authenticationFailures, 1)
        XCTAssertEqual(receiver.stats.replayFailures, 1)
        XCTAssertEqual(receiver.stats.rtcpPacketsUnprotected, 1)
    }

    func testSenderRefusesToReuseASequenceNumberUnlessConfigured() throws {
        let k = keys(.aesCM128HmacSHA1_80)
        let strict = try SRTPSession(outbound: k, inbound: k)
        _ = try process(rtpPacket(sequence: 5), strict.protectRTP)
        assertThrows(.replayFail) { _ = try process(rtpPacket(sequence: 5), strict.protectRTP) }
        XCTAssertEqual(strict.stats.protectFailures, 1)

        let lenient = try SRTPSession(outbound: k, inbound: k, configuration: .init(allowsRepeatedTransmission: true))
        let first = try process(rtpPacket(sequence: 5), lenient.protectRTP)
        XCTAssertEqual(try process(rtpPacket(sequence: 5), lenient.protectRTP), first)
    }

    func testSRTCPIndexAndEncryptedFlagAreAppended() throws {
        let k = keys(.aesCM128HmacSHA1_80)
        let sender = try SRTPSession(outbound: k, inbound: k)
        for expectedIndex in UInt32(1)...3 {
            let srtcp = try process(rtcpPacket(), sender.protectRTCP)
            let word = srtcp.withUnsafeBytes { raw -> UInt32? in
                var reader = ByteReader(raw)
                guard (try? reader.skip(rtcpPacket().count)) != nil else { return nil }
                return try? reader.readUInt32()
            }
            XCTAssertEqual(word, 0x8000_0000 | expectedIndex, "E flag set, index counts up from 1")
        }
    }

    // MARK: Buffer and length checks

    func testBufferWithoutRoomForTagIsTypedError() throws {
        let k = keys(.aesCM128HmacSHA1_80)
        let session = try SRTPSession(outbound: k, inbound: k)
        let plain = rtpPacket(sequence: 1)
        var buffer = plain + [UInt8](repeating: 0, count: 9)  // one byte short of the 10-byte tag
        buffer.withUnsafeMutableBytes { raw in
            assertThrows(.bufferTooSmall) { _ = try session.protectRTP(raw, length: plain.count) }
            assertThrows(.bufferTooSmall) { _ = try session.protectRTCP(raw, length: plain.count) }
            assertThrows(.bufferTooSmall) { _ = try session.unprotectRTP(raw, length: raw.count + 1) }
        }
        XCTAssertEqual(Array(buffer.prefix(plain.count)), plain, "buffer untouched")
        XCTAssertEqual(session.stats.protectFailures, 2)
        XCTAssertEqual(session.stats.otherFailures, 1)
        XCTAssertEqual(session.stats.rtpPacketsProtected, 0)
    }

    func testTruncatedPacketsAreTypedErrors() throws {
        let k = keys(.aesCM128HmacSHA1_80)
        let session = try SRTPSession(outbound: k, inbound: k)
        var buffer = [UInt8](repeating: 0x80, count: 64)
        buffer.withUnsafeMutableBytes { raw in
            assertThrows(.packetTooShort) { _ = try session.protectRTP(raw, length: 11) }
            assertThrows(.packetTooShort) { _ = try session.protectRTCP(raw, length: 7) }
            // Inbound: a header plus a partial tag, and an SRTCP packet missing its index word.
            assertThrows(.packetTooShort) { _ = try session.unprotectRTP(raw, length: 12 + 9) }
            assertThrows(.packetTooShort) { _ = try session.unprotectRTCP(raw, length: 8 + 10 + 3) }
            assertThrows(.packetTooShort) { _ = try session.unprotectRTP(raw, length: 0) }
            assertThrows(.packetTooShort) { _ = try session.unprotectRTP(raw, length: -1) }
        }
        XCTAssertEqual(session.stats.protectFailures, 2)
        XCTAssertEqual(session.stats.otherFailures, 4)
    }

    func testGarbageOfValidLengthIsRejectedNotReturned() throws {
        let k = keys(.aeadAES256GCM)
        let session = try SRTPSession(outbound: k, inbound: k)
        var garbage = [UInt8](repeating: 0xA5, count: 80)
        garbage[0] = 0x80
        assertThrows(.authFail) { _ = try process(garbage, session.unprotectRTP) }
        assertThrows(.authFail) { _ = try process(garbage, session.unprotectRTCP) }
        XCTAssertEqual(session.stats.rejectedPackets, 2)
    }

    func testMaxTrailerLengthMatchesLibSRTP() {
        XCTAssertEqual(SRTPSession.maxTrailerLength, 16 + 128)  // SRTP_MAX_TAG_LEN + SRTP_MAX_MKI_LEN
        for suite in SRTPSuite.allCases {
            XCTAssertLessThanOrEqual(suite.rtcpTrailerLength(mkiLength: 128), SRTPSession.maxTrailerLength + 4)
        }
    }

    // MARK: Configuration and MKI

    func testReplayWindowOutsideLibSRTPLimitsIsBadParam() {
        let k = keys(.aesCM128HmacSHA1_80)
        for size in [0, 63, 0x8000] {
            XCTAssertThrowsError(try SRTPSession(outbound: k, inbound: k, configuration: .init(replayWindowSize: size))) {
                XCTAssertEqual($0 as? SRTPError, .badParam)
            }
        }
        XCTAssertNoThrow(try SRTPSession(outbound: k, inbound: k, configuration: .init(replayWindowSize: 1024)))
    }

    func testMKIIsCarriedAfterThePayloadAndVerified() throws {
        var k = keys(.aesCM128HmacSHA1_80)
        k.mki = SRTPMasterKeyIdentifier(value: 0x0102, length: 4)
        let sender = try SRTPSession(outbound: k, inbound: k)
        let receiver = try SRTPSession(outbound: k, inbound: k)
        XCTAssertEqual(sender.rtpTrailerLength, 14)

        let plain = rtpPacket(sequence: 77)
        let protected = try process(plain, sender.protectRTP)
        XCTAssertEqual(protected.count, plain.count + 4 + 10)
        XCTAssertEqual(Array(protected[plain.count..<plain.count + 4]), [0, 0, 1, 2], "MKI precedes the tag")
        XCTAssertEqual(try process(protected, receiver.unprotectRTP), plain)

        let srtcp = try process(rtcpPacket(), sender.protectRTCP)
        XCTAssertEqual(srtcp.count, rtcpPacket().count + 4 + 4 + 10)
        XCTAssertEqual(try process(srtcp, receiver.unprotectRTCP), rtcpPacket())

        var otherMKI = k
        otherMKI.mki = SRTPMasterKeyIdentifier(value: 9, length: 4)
        let stranger = try SRTPSession(outbound: otherMKI, inbound: otherMKI)
        let next = try process(rtpPacket(sequence: 78), sender.protectRTP)
        assertThrows(.badMKI) { _ = try process(next, stranger.unprotectRTP) }
        XCTAssertEqual(stranger.stats.otherFailures, 1)
    }

    // MARK: Errors

    func testErrorCodesMapFromLibSRTPStatus() {
        XCTAssertEqual(SRTPError(status: srtp_err_status_auth_fail), .authFail)
        XCTAssertEqual(SRTPError(status: srtp_err_status_replay_fail), .replayFail)
        XCTAssertEqual(SRTPError(status: srtp_err_status_replay_old), .replayOld)
        XCTAssertEqual(SRTPError(status: srtp_err_status_bad_param), .badParam)
        XCTAssertEqual(SRTPError(status: srtp_err_status_cipher_fail), .cipherFail)
        XCTAssertNoThrow(try SRTPError.check(srtp_err_status_ok))
        XCTAssertThrowsError(try SRTPError.check(srtp_err_status_auth_fail)) {
            XCTAssertEqual($0 as? SRTPError, .authFail)
        }
        XCTAssertEqual(SRTPError.authFail.description, "SRTP: authentication failed")
        XCTAssertEqual(SRTPError.bufferTooSmall.description, "SRTP: buffer too small for packet and trailer")
        XCTAssertTrue(SRTPError.replayOld.isReplay)
        XCTAssertFalse(SRTPError.authFail.isReplay)
    }
}
