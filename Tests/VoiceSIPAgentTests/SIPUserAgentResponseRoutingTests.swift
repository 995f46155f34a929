import VoiceEmbedded
import Foundation
import NIOCore
import NIOPosix
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// RFC 3261 §18.2.2 on a stream: a response goes back on the request's connection, and when
/// that connection has closed, over a new one to the received address and the sent-by port.
final class SIPUserAgentResponseRoutingTests: XCTestCase {
    private func invite(branch: String, sentBy: SIPTransportEndpoint, to target: SIPTransportEndpoint) -> [UInt8] {
        let sdp = [
            "v=0", "o=- 10 10 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio 30000 RTP/SAVP 0", "a=rtpmap:0 PCMU/8000",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR", "",
        ].joined(separator: "\r\n")
        let text = [
            "INVITE sip:target@127.0.0.1:\(target.port);transport=tcp SIP/2.0",
            "Via: SIP/2.0/TCP 127.0.0.1:\(sentBy.port);branch=\(branch)",
            "Max-Forwards: 70", "From: <sip:caller@127.0.0.1>;tag=c1", "To: <sip:target@127.0.0.1>",
            "Call-ID: \(branch)@test", "CSeq: 1 INVITE", "Contact: <sip:caller@127.0.0.1:\(sentBy.port);transport=tcp>",
            "Content-Type: application/sdp", "Content-Length: \(sdp.utf8.count)", "", sdp,
        ].joined(separator: "\r\n")
        return Array(text.utf8)
    }

    func testAFinalResponseAfterTheRequestsConnectionClosedGoesToTheSentByPort() throws {
        let target = try SIPTestAgent(user: "target", transport: .tcp)
        defer { target.shutdown() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let recorder = SIPTransportEventRecorder()
        let caller = try SIPTransportLayer(group: group, onEvent: recorder.handler)
        defer { try? caller.shutdown().wait() }
        let listening = try caller.listen(.tcp, host: "127.0.0.1", port: 0).wait()
        let branch = SIPIdentifierGenerator.branch()
        try caller.send(invite(branch: branch, sentBy: listening, to: target.endpoint), to: target.endpoint).wait()
        let (handle, _) = try XCTUnwrap(target.waitForIncomingCall())
        let answers = { (status: Int) in
            recorder.messages.filter { (try? $0.0.headers.topVia().branch) == branch && $0.0.response?.statusCode == status }
        }
        XCTAssertTrue(recorder.waitUntil { !answers(100).isEmpty }, "100 Trying on the request's connection")

        try caller.closeConnection(to: target.endpoint).wait()
        XCTAssertTrue(recorder.waitUntil {
            recorder.all.contains { if case .connectionClosed = $0 { true } else { false } }
        })
        XCTAssertTrue(PollingWait.until(timeout: 5) {
            target.events.contains { if case .connectionLost = $0 { true } else { false } }
        }, "the target noticed the close too")
        target.agent.reject(handle, statusCode: 486)
        XCTAssertTrue(recorder.waitUntil(timeout: 10) { !answers(486).isEmpty }, "486 over a new connection to the sent-by port")
    }
}
