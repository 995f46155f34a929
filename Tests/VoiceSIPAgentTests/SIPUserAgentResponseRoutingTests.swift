import NIOCore
import NIOEmbedded
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// RFC 3261 §18.2.2 on a stream: a response goes back on the request's connection, and when
/// that connection has closed, over a new one to the received address and the sent-by port.
/// On the in-memory network and an `EmbeddedEventLoop`: the subject is the agent's routing,
/// not a kernel's TCP. (Plain RTP: SDES keys go only over TLS, and TLS is not the subject.)
final class SIPUserAgentResponseRoutingTests: EmbeddedSIPTestCase {
    private func invite(branch: String, sentBy: SIPTransportEndpoint, to target: SIPTransportEndpoint) -> [UInt8] {
        let sdp = [
            "v=0", "o=- 10 10 IN IP4 10.0.0.1", "s=-", "c=IN IP4 10.0.0.1", "t=0 0",
            "m=audio 30000 RTP/AVP 0", "a=rtpmap:0 PCMU/8000", "",
        ].joined(separator: "\r\n")
        let text = [
            "INVITE sip:target@\(target.host):\(target.port);transport=tcp SIP/2.0",
            "Via: SIP/2.0/TCP \(sentBy.host):\(sentBy.port);branch=\(branch)",
            "Max-Forwards: 70", "From: <sip:caller@10.0.0.1>;tag=c1", "To: <sip:target@10.0.0.2>",
            "Call-ID: \(branch)@test", "CSeq: 1 INVITE", "Contact: <sip:caller@\(sentBy.host):\(sentBy.port);transport=tcp>",
            "Content-Type: application/sdp", "Content-Length: \(sdp.utf8.count)", "", sdp,
        ].joined(separator: "\r\n")
        return Array(text.utf8)
    }

    func testAFinalResponseAfterTheRequestsConnectionClosedGoesToTheSentByPort() throws {
        // The target: a user agent listening on TCP.
        let targetEvents = Locked<[SIPUserAgentEvent]>([])
        let configuration = SIPUserAgentConfiguration(
            identity: SIPNameAddress(uri: SIPURI(user: "target", host: "10.0.0.2")), transport: .tcp, listenHost: "10.0.0.2",
            listenPort: 5060, media: SDPLocalCapabilities(address: "10.0.0.2", port: 0, encryption: .unencrypted))
        let target = try SIPUserAgent(
            configuration: configuration, transport: network.transportFactory,
            mediaPorts: { loop in loop.makeSucceededFuture(UInt16(30_002)) }
        ) { event in targetEvents.withLock { $0.append(event) } }
        let targetEndpoint = try value(target.start())

        // The caller: a bare transport, listening where its Via says.
        let received = Locked<[SIPTransportEvent]>([])
        let caller = try network.transportFactory { event in received.withLock { $0.append(event) } }
        let listening = try value(caller.listen(.tcp, host: "10.0.0.1", port: 5070))
        let branch = SIPIdentifierGenerator.branch()
        try value(caller.send(invite(branch: branch, sentBy: listening, to: targetEndpoint), to: targetEndpoint, serverName: nil))
        // A server transaction says 100 Trying when its user has not answered within 200 ms.
        loop.advanceTime(by: .milliseconds(250))
        let answers = { (status: Int) in
            received.withLock { events in
                events.compactMap { event -> (SIPResponse, SIPTransportEndpoint)? in
                    guard case .received(let message, let source) = event, let response = message.response,
                        (try? response.headers.topVia().branch) == branch, response.statusCode == status
                    else { return nil }
                    return (response, source)
                }
            }
        }
        XCTAssertEqual(answers(100).count, 1, "100 Trying on the request's connection")
        let handle = try XCTUnwrap(
            targetEvents.withLock { events in
                events.lazy.compactMap { if case .incomingCall(let handle, _, _, _) = $0 { handle } else { nil } }.first
            }, "the target took the call")

        try value(caller.closeConnection(to: targetEndpoint))
        loop.run()
        XCTAssertTrue(
            targetEvents.withLock { $0.contains { if case .connectionLost = $0 { true } else { false } } }, "the target noticed the close")

        target.reject(handle, statusCode: 486)
        loop.run()
        XCTAssertEqual(answers(486).count, 1, "486 over a new connection to the sent-by port")
        // Where each answer was written: the 100 on the request's connection (the caller's
        // ephemeral port), the 486 on a new one to the Via's sent-by port.
        let written = { (status: Int) in
            self.network.sent.filter { $0.message?.response?.statusCode == status }.map(\.destination)
        }
        let trying = try XCTUnwrap(written(100).first)
        XCTAssertNotEqual(trying.port, listening.port, "the request's connection came from an ephemeral port")
        XCTAssertEqual(written(486).map(\.port), [listening.port], "to the sent-by port, not the closed connection's")
        XCTAssertEqual(written(486).map(\.host), ["10.0.0.1"], "at the address the request came from")
        _ = target.shutdown()
        _ = caller.shutdown()
        loop.run()
    }
}
