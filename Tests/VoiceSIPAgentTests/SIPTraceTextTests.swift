import Foundation
import Logging
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
    func testAUserAgentsTraceLogHoldsNoSRTPKey() throws {
        let lines = Locked<[String]>([])
        var logger = Logger(label: "trace-test") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .trace
        let alice = try SIPTestAgent(user: "alice", logger: logger)
        let bob = try SIPTestAgent(user: "bob")
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        let outgoing = try alice.agent.call(bob.uri).wait()
        let (incoming, _) = try XCTUnwrap(bob.waitForIncomingCall())
        bob.agent.accept(incoming)
        let media = try XCTUnwrap(alice.waitForEstablished(outgoing))
        alice.agent.hangUp(outgoing)
        _ = alice.waitForTermination(outgoing)
        let log = lines.withLock { $0.joined(separator: "\n") }
        XCTAssertTrue(log.contains("a=crypto:"), "the SDP was traced")
        XCTAssertTrue(log.contains("inline:<redacted>"))
        for key in [media.localKey, media.remoteKey].compactMap({ $0 }) {
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
