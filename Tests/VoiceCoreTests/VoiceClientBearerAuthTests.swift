import VoiceService
import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceMediaTypes

/// The access token answers an RFC 8898 Bearer challenge, on REGISTER and on INVITE, against a
/// hand-written server that challenges with `WWW-Authenticate: Bearer`; without a token none is
/// sent. In virtual time (``VirtualCallWorld``).
final class VoiceClientBearerAuthTests: VirtualTimeTestCase {

    private func makeClient(server: SIPStubServer) throws -> VoiceClient {
        let proxy = try SIPServerAddress("sip:" + server.hostPort)
        let host = world.makeHost()
        var configuration = VoiceClientConfiguration(
            identity: "alice", domain: host, listenHost: host, listenPort: 5060, outboundProxy: proxy, registrar: proxy)
        configuration.publishInsights(to: RecordingInsightsPublisher())
        configuration.mediaEngine = world.engine
        return try VoiceClient(
            configuration: configuration, audioDevice: nil, transport: world.sipNetwork.transportFactory,
            mediaPorts: world.mediaPorts(), runsMediaJobsInline: true)
    }

    private static let challenge = ("WWW-Authenticate", #"Bearer realm="voice.example", scope="voice""#)

    func testRegisterAnswersABearerChallengeWithTheAccessToken() throws {
        let server = try SIPStubServer(world: world)
        let client = try makeClient(server: server)
        defer { client.shutdown() }
        let token = CallTestTokens.token("alice")
        let done = Locked<[VoiceError?]>([])
        let delegate = ScriptedNotificationDelegate()
        client.register(accessToken: token, notificationDelegate: delegate, delegateQueue: delegate.queue) { error in
            done.withLock { $0.append(error) }
        }
        let first = try server.nextRequest(.register)
        XCTAssertNil(first.headers.first("Authorization"), "no credentials before the challenge")
        try server.reply(first, 401, headers: [Self.challenge])
        let second = try server.nextRequest(.register, after: try first.headers.cseq().sequence)
        XCTAssertEqual(second.headers.first("Authorization"), "Bearer \(token)")
        try server.acceptRegistration(second)
        XCTAssertTrue(PollingWait.until(timeout: 10) { !done.withLock { $0 }.isEmpty })
        XCTAssertEqual(done.withLock { $0.count }, 1)
        XCTAssertNil(done.withLock { $0.first } ?? nil, "registered")
    }

    func testInviteAnswersABearerChallengeWithTheAccessTokenAndARejectedTokenFailsWith20151() throws {
        let server = try SIPStubServer(world: world)
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
        let first = try server.nextRequest(.invite)
        XCTAssertNil(first.headers.first("Authorization"))
        XCTAssertEqual(first.uri.user, "bob")
        try server.reply(first, 401, headers: [Self.challenge])
        let second = try server.nextRequest(.invite, after: try first.headers.cseq().sequence)
        XCTAssertEqual(second.headers.first("Authorization"), "Bearer \(token)")
        // The server does not accept the token: a second challenge for the same realm.
        try server.reply(second, 401, headers: [Self.challenge])
        XCTAssertEqual(delegate.waitForEnd(), [.failed(.authFailure)])
    }

    /// Without a token nothing can answer a Bearer challenge: the call fails as refused
    /// credentials, and no Bearer credential is made up.
    func testWithoutATokenABearerChallengeIsNotAnsweredWithOne() throws {
        let server = try SIPStubServer(world: world)
        let client = try makeClient(server: server)
        defer { client.shutdown() }
        let delegate = RecordingCallDelegate()
        _ = client.connect(
            options: ConnectOptions { builder in
                builder.params = ["To": "bob"]
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
        let first = try server.nextRequest(.invite)
        XCTAssertNil(first.headers.first("Authorization"))
        try server.reply(first, 401, headers: [Self.challenge])
        let ended = delegate.waitForEnd()
        guard case .failed(let code)? = ended.last else { return XCTFail("\(ended)") }
        XCTAssertEqual(code, .authorizationError, "a 401 nothing could answer, not a refused token")
        XCTAssertNil(server.receive(timeout: .milliseconds(300)) { $0.contains("Bearer") }, "no Bearer credential sent")
    }
}
