import Foundation
import VoiceMedia
import VoiceTestKit
import XCTest
import VoiceMediaTypes
import VoiceSupport

/// baresip as an auto-answering SRTP/Opus user agent, spoken to with hand-written SIP over UDP.
final class SIPPeerHarnessBaresipTests: XCTestCase {
    private func startBaresip(recording: String? = nil) throws -> BaresipPeer {
        try requirePeer("baresip")
        var configuration = BaresipConfiguration()
        configuration.recordingDirectory = recording
        return try BaresipPeer(configuration: configuration)
    }

    func testAnswersOptions() throws {
        let baresip = try startBaresip()
        defer { baresip.stop() }
        let channel = try SIPPeerUDPChannel()
        defer { channel.close() }
        try channel.send(
            SIPPeerProcess.optionsRequest(requestURI: baresip.uri, from: channel.localAddress, branch: "z9hG4bK-b-opt"),
            to: baresip.sipAddress)
        let reply = try XCTUnwrap(channel.receive(timeout: .seconds(5)) { $0.contains("z9hG4bK-b-opt") })
        XCTAssertEqual(SIPPeerHarnessText.statusCode(reply), 200, reply)
        XCTAssertTrue(SIPPeerHarnessText.header("Allow", in: reply)?.contains("INVITE") ?? false)
    }

    func testOpusApplicationAndChannelsReachTheConfigurationAndBadValuesAreRefused() throws {
        try requirePeer("baresip")
        var configuration = BaresipConfiguration()
        configuration.opusApplication = "voip"
        configuration.opusStereo = false
        let baresip = try BaresipPeer(configuration: configuration)
        defer { baresip.stop() }
        let text = try String(contentsOfFile: baresip.directory + "/config", encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.split(whereSeparator: { $0 == "\t" || $0 == " " }).joined(separator: " ") }
        XCTAssertTrue(lines.contains("opus_application voip"), text)
        XCTAssertTrue(lines.contains("opus_stereo no"), text)
        XCTAssertTrue(lines.contains("opus_sprop_stereo no"), text)

        var bad = BaresipConfiguration()
        bad.opusApplication = "lowdelay\nmodule evil.so"
        XCTAssertThrowsError(try BaresipPeer(configuration: bad)) { error in
            XCTAssertEqual((error as? SIPPeerError)?.kind, .invalidValue, "\(error)")
        }
    }

    func testAutoAnswersSRTPOpusInviteAndHangsUpOnBye() throws {
        let recording = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-recording")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let baresip = try startBaresip(recording: recording)
        defer { baresip.stop() }
        let channel = try SIPPeerUDPChannel()
        defer { channel.close() }
        let local = channel.localAddress
        let mediaPort = try SIPPeerProcess.freeUDPPortRange(count: 2).lowerBound
        let key = Data((0..<30).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let sdp = [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio \(mediaPort) RTP/SAVP 111",
            "a=rtpmap:111 opus/48000/2",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)",
            "a=sendrecv", "",
        ].joined(separator: "\r\n")
        let callID = "call-\(UInt32.random(in: 0...UInt32.max))@127.0.0.1"
        func request(_ method: String, uri: String, branch: String, cseq: Int, toTag: String?, body: String = "") -> String {
            var lines = [
                "\(method) \(uri) SIP/2.0",
                "Via: SIP/2.0/UDP \(local);branch=\(branch);rport",
                "Max-Forwards: 70",
                "From: <sip:probe@\(local)>;tag=probe1",
                "To: <\(baresip.uri)>" + (toTag.map { ";tag=\($0)" } ?? ""),
                "Call-ID: \(callID)",
                "CSeq: \(cseq) \(method)",
                "Contact: <sip:probe@\(local)>",
            ]
            if !body.isEmpty { lines.append("Content-Type: application/sdp") }
            lines += ["Content-Length: \(body.utf8.count)", "", body]
            return lines.joined(separator: "\r\n")
        }

        try channel.send(request("INVITE", uri: baresip.uri, branch: "z9hG4bK-inv", cseq: 1, toTag: nil, body: sdp), to: baresip.sipAddress)
        var codes: [Int] = []
        var final: String?
        let deadline = ContinuousClock.now + .seconds(10)
        while final == nil, ContinuousClock.now < deadline {
            guard let reply = channel.receive(timeout: .seconds(1), where: { $0.contains("z9hG4bK-inv") }),
                let code = SIPPeerHarnessText.statusCode(reply)
            else { continue }
            codes.append(code)
            if code >= 200 { final = reply }
        }
        let answer = try XCTUnwrap(final, "no final answer to INVITE (got \(codes)); log:\n\(baresip.process.logTail())")
        XCTAssertEqual(codes.last, 200)
        XCTAssertTrue(codes.contains(180), "auto-answer still rings first: \(codes)")
        XCTAssertTrue(codes.dropLast().allSatisfy { (100..<200).contains($0) }, "\(codes)")
        XCTAssertEqual(SIPPeerHarnessText.header("Content-Type", in: answer), "application/sdp")
        let answerSDP = SIPPeerHarnessText.body(answer)
        XCTAssertTrue(answerSDP.contains("c=IN IP4 127.0.0.1"), answerSDP)
        XCTAssertTrue(answerSDP.contains("RTP/SAVP 111"), answerSDP)
        XCTAssertTrue(answerSDP.contains("a=rtpmap:111 opus/48000/2"), answerSDP)
        XCTAssertTrue(answerSDP.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:"), answerSDP)
        let toTag = try XCTUnwrap(SIPPeerHarnessText.parameter("tag", in: SIPPeerHarnessText.header("To", in: answer) ?? ""))
        let contact = try XCTUnwrap(SIPPeerHarnessText.header("Contact", in: answer))
        let remoteTarget = String(contact.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" })
        XCTAssertTrue(remoteTarget.hasPrefix("sip:"), contact)

        try channel.send(request("ACK", uri: remoteTarget, branch: "z9hG4bK-ack", cseq: 1, toTag: toTag), to: baresip.sipAddress)
        try channel.send(request("BYE", uri: remoteTarget, branch: "z9hG4bK-bye", cseq: 2, toTag: toTag), to: baresip.sipAddress)
        let byeReply = try XCTUnwrap(
            channel.receive(timeout: .seconds(5)) { $0.contains("z9hG4bK-bye") },
            "no answer to BYE; log:\n\(baresip.process.logTail())")
        XCTAssertEqual(SIPPeerHarnessText.statusCode(byeReply), 200, byeReply)
        XCTAssertEqual(SIPPeerHarnessText.header("CSeq", in: byeReply), "2 BYE")
        XCTAssertTrue(baresip.log.contains("SRTP is Enabled"), baresip.process.logTail())
        let recordings = (try? FileManager.default.contentsOfDirectory(atPath: recording)) ?? []
        XCTAssertTrue(recordings.contains { $0.hasSuffix("-enc.wav") }, "sndfile records the sent audio: \(recordings)")
    }
}
