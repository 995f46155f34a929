import Foundation
import NIOConcurrencyHelpers
import VoiceMedia
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceMediaTypes

/// The access token answers an RFC 8898 Bearer challenge, on REGISTER and on INVITE, against a
/// hand-written server that challenges with `WWW-Authenticate: Bearer`.
final class VoiceClientBearerAuthTests: XCTestCase {
    private let parser = SIPMessageParser()

    private func makeClient(server: SIPPeerUDPChannel) throws -> VoiceClient {
        let proxy = "sip:127.0.0.1:\(server.localAddress.port)"
        return try VoiceClient(configuration: VoiceClientConfiguration(
            identity: "alice", domain: "127.0.0.1", outboundProxy: proxy, registrar: proxy,
            insightsPublisher: RecordingInsightsPublisher()))
    }

    /// The next request with `method`, skipping retransmissions of earlier ones and ACKs.
    private func nextRequest(_ method: SIPMethod, on server: SIPPeerUDPChannel, after cseq: UInt32 = 0) throws -> SIPRequest {
        var found: SIPRequest?
        _ = server.receive(timeout: .seconds(10)) { text in
            guard case .request(let request) = try? self.parser.parse(datagram: Array(text.utf8)),
                request.method == method, let sequence = try? request.headers.cseq(), sequence.sequence > cseq
            else { return false }
            found = request
            return true
        }
        return try XCTUnwrap(found, "no \(method) arrived")
    }

    private func reply(_ request: SIPRequest, _ status: Int, on server: SIPPeerUDPChannel, headers: [(String, String)] = []) throws {
        var response = SIPResponse(replyingTo: request, statusCode: status, toTag: status == 100 ? nil : "srv1")
        for (name, value) in headers { response.headers.add(name, value) }
        response.headers.set("Content-Length", "0")
        let via = try XCTUnwrap(request.headers.topVia())
        let port = via.rport ?? via.port ?? 5060
        try server.send(String(decoding: response.serialized(), as: UTF8.self), to: SocketAddress(host: "127.0.0.1", port: port))
    }

    private static let challenge = ("WWW-Authenticate", #"Bearer realm="voice.example", scope="voice""#)

    func testRegisterAnswersABearerChallengeWithTheAccessToken() throws {
        let server = try SIPPeerUDPChannel()
        let client = try makeClient(server: server)
        defer { client.shutdown() }
        let token = CallTestTokens.token("alice")
        let done = NIOLockedValueBox<[VoiceError?]>([])
        let delegate = ScriptedNotificationDelegate()
        client.register(accessToken: token, notificationDelegate: delegate, delegateQueue: delegate.queue) { error in
            done.withLockedValue { $0.append(error) }
        }
        let first = try nextRequest(.register, on: server)
        XCTAssertNil(first.headers.first("Authorization"), "no credentials before the challenge")
        try reply(first, 401, on: server, headers: [Self.challenge])
        let second = try nextRequest(.register, on: server, after: try first.headers.cseq().sequence)
        XCTAssertEqual(second.headers.first("Authorization"), "Bearer \(token)")
        let contact = try XCTUnwrap(second.headers.first("Contact"))
        try reply(second, 200, on: server, headers: [("Contact", contact + ";expires=600")])
        XCTAssertTrue(PollingWait.until(timeout: 10) { !done.withLockedValue { $0 }.isEmpty })
        XCTAssertEqual(done.withLockedValue { $0.count }, 1)
        XCTAssertNil(done.withLockedValue { $0.first } ?? nil, "registered")
    }

    func testInviteAnswersABearerChallengeWithTheAccessTokenAndARejectedTokenFailsWith20151() throws {
        let server = try SIPPeerUDPChannel()
        let client = try makeClient(server: server)
        defer { client.shutdown() }
        let token = CallTestTokens.token("alice")
        let delegate = RecordingCallDelegate()
        _ = client.connect(
            options: ConnectOptions(accessToken: token) { builder in
                builder.params = ["To": "bob"]
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
        let first = try nextRequest(.invite, on: server)
        XCTAssertNil(first.headers.first("Authorization"))
        XCTAssertEqual(first.uri.user, "bob")
        try reply(first, 401, on: server, headers: [Self.challenge])
        let second = try nextRequest(.invite, on: server, after: try first.headers.cseq().sequence)
        XCTAssertEqual(second.headers.first("Authorization"), "Bearer \(token)")
        // The server does not accept the token: a second challenge for the same realm.
        try reply(second, 401, on: server, headers: [Self.challenge])
        XCTAssertEqual(delegate.waitForEnd(), [.failed(.authFailure)])
    }
}
