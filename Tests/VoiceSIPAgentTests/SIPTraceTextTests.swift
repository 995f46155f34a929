import Foundation
import Logging
import NIOCore
import NIOEmbedded
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

final class SIPTraceTextTests: XCTestCase {
    private func render(_ text: String) -> String { SIPTraceText.render(Array(text.utf8)) }

    func testSDESKeysAreRedactedAndTheRestOfTheLineKept() {
        let line = "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4;inline:QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVow|2^20|2:4 KDR=1"
        XCTAssertEqual(
            render(line),
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<redacted>|2^20|1:4;inline:<redacted>|2^20|2:4 KDR=1")
        XCTAssertEqual(render("A=CRYPTO:2 AES_CM_128_HMAC_SHA1_32 INLINE:c2VjcmV0 x"), "A=CRYPTO:2 AES_CM_128_HMAC_SHA1_32 INLINE:<redacted> x")
        XCTAssertEqual(render("s=inline:not-a-key"), "s=inline:not-a-key", "only crypto attributes")
    }

    func testCredentialsAreRedactedKeepingTheScheme() {
        XCTAssertEqual(render("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.sig"), "Authorization: Bearer <redacted>")
        XCTAssertEqual(
            render("Proxy-Authorization : Digest username=\"alice\", response=\"6629fae49393a05397450978507c4ef1\""),
            "Proxy-Authorization : Digest <redacted>")
        XCTAssertEqual(render("authorization:Digest response=\"x\""), "authorization: Digest <redacted>")
        XCTAssertEqual(
            render("Authorization: Digest username=\"alice\",\r\n  response=\"6629fae4\"\r\nTo: <sip:b@x>"),
            "Authorization: Digest <redacted>\n  <redacted>\nTo: <sip:b@x>", "a folded continuation is redacted too")
        XCTAssertEqual(render("WWW-Authenticate: Digest realm=\"a\""), "WWW-Authenticate: Digest realm=\"a\"", "challenges are not secret")
    }

    func testControlCharactersAreEscapedAndLinesKept() {
        let forged = "From: <sip:evil\r\n\u{1b}[31mFAKE-LOG-LINE@x>\r\nSubject: \u{7}\u{85}ok\tfine\r\n\r\n"
        XCTAssertEqual(
            render(forged),
            "From: <sip:evil\n\\u{1b}[31mFAKE-LOG-LINE@x>\nSubject: \\u{7}\\u{85}ok\tfine\n",
            "a bare line break stays a line break, every other control is shown, not obeyed")
        XCTAssertFalse(render("a\u{0}b\u{7f}c").unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    /// A whole call logged at trace level: the SDP goes by in both directions, its keys never do.
    /// Two agents on the in-memory network and an `EmbeddedEventLoop`: the subject is the log.
    func testAUserAgentsTraceLogHoldsNoSRTPKey() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let network = SIPMemoryNetwork(loop: loop)
        let lines = Locked<[String]>([])
        var traced = Logger(label: "trace-test") { _ in CapturingLogHandler(lines: lines) }
        traced.logLevel = .trace
        func agent(_ user: String, _ host: String, logger: Logger) throws -> (SIPUserAgent, Locked<[SIPUserAgentEvent]>) {
            let events = Locked<[SIPUserAgentEvent]>([])
            let configuration = SIPUserAgentConfiguration(
                identity: SIPNameAddress(uri: SIPURI(user: user, host: host)), listenHost: host, listenPort: 5060,
                media: SDPLocalCapabilities(address: host, port: 0, encryption: .required))
            let agent = try SIPUserAgent(
                configuration: configuration, transport: network.transportFactory,
                mediaPorts: { loop in loop.makeSucceededFuture(UInt16(30_000)) }, logger: logger
            ) { event in events.withLock { $0.append(event) } }
            _ = agent.start()
            loop.run()
            return (agent, events)
        }
        let (alice, aliceEvents) = try agent("alice", "127.0.0.1", logger: traced)
        let (bob, bobEvents) = try agent("bob", "127.0.0.2", logger: Logger(label: "quiet"))
        let outgoing = Locked<SIPCallHandle?>(nil)
        alice.call(SIPURI(user: "bob", host: "127.0.0.2")).whenSuccess { handle in outgoing.withLock { $0 = handle } }
        loop.run()
        let incoming = try XCTUnwrap(
            bobEvents.withLock { events in
                events.lazy.compactMap { if case .incomingCall(let handle, _, _, _) = $0 { handle } else { nil } }.first
            })
        bob.accept(incoming)
        loop.advanceTime(by: .milliseconds(10))
        let media = try XCTUnwrap(
            aliceEvents.withLock { events in
                events.lazy.compactMap { if case .call(_, .established(let media)) = $0 { media } else { nil } }.first
            }, "the call was established")
        alice.hangUp(try XCTUnwrap(outgoing.withLock { $0 }))
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertTrue(
            aliceEvents.withLock { $0.contains { if case .call(_, .terminated) = $0 { true } else { false } } }, "the call ended")
        let log = lines.withLock { $0.joined(separator: "\n") }
        XCTAssertTrue(log.contains("a=crypto:"), "the SDP was traced")
        XCTAssertTrue(log.contains("inline:<redacted>"))
        let keys = [media.localKey, media.remoteKey].compactMap { $0 }
        XCTAssertEqual(keys.count, 2, "SDES keys both ways")
        for key in keys {
            let encoded = Data(key.masterKey + key.masterSalt).base64EncodedString()
            XCTAssertFalse(log.contains(encoded), "a master key reached the log")
        }
        XCTAssertFalse(log.contains { $0 == "\r" }, "no raw carriage returns")
    }
}

private struct CapturingLogHandler: LogHandler {
    let lines: Locked<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append(event.message.description) }
    }
}
