import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPDigestAuthorizationTests: XCTestCase {
    /// RFC 2617 §3.5: Mufasa / "Circle Of Life", GET /dir/index.html.
    func testRFC2617Example() throws {
        let challenge = try DigestChallenge(parsing: SIPDigestChallengeTests.rfc2617Challenge)
        let auth = DigestAuthorization(
            answering: challenge, username: "Mufasa", password: "Circle Of Life", method: "GET",
            uri: "/dir/index.html", cnonce: "0a4f113b", nonceCount: 1)
        XCTAssertEqual(auth.response, "6629fae49393a05397450978507c4ef1")
        XCTAssertEqual(auth.qop, .auth)
        XCTAssertEqual(
            auth.headerValue,
            #"Digest username="Mufasa", realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", response="6629fae49393a05397450978507c4ef1", algorithm=MD5, cnonce="0a4f113b", opaque="5ccc069c403ebaf9f0171e9517f40e41", qop=auth, nc=00000001"#
        )
    }

    /// RFC 7616 §3.9.1: Mufasa / "Circle of Life", MD5.
    func testRFC7616MD5Example() throws {
        let challenge = try DigestChallenge(parsing: SIPDigestChallengeTests.rfc7616MD5Challenge)
        let auth = DigestAuthorization(
            answering: challenge, username: "Mufasa", password: "Circle of Life", method: "GET",
            uri: "/dir/index.html", cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", nonceCount: 1)
        XCTAssertEqual(auth.response, "8ca523f5e9506fed4657c9700eebdbec")
        XCTAssertEqual(auth.algorithm, .md5)
        XCTAssertEqual(auth.opaque, "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
    }

    /// RFC 7616 §3.9.1: Mufasa / "Circle of Life", SHA-256.
    func testRFC7616SHA256Example() throws {
        let challenge = try DigestChallenge(parsing: SIPDigestChallengeTests.rfc7616SHA256Challenge)
        let auth = DigestAuthorization(
            answering: challenge, username: "Mufasa", password: "Circle of Life", method: "GET",
            uri: "/dir/index.html", cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", nonceCount: 1)
        XCTAssertEqual(auth.response, "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
        XCTAssertEqual(
            auth.headerValue,
            #"Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", uri="/dir/index.html", response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", algorithm=SHA-256, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", qop=auth, nc=00000001"#
        )
    }

    /// Expected values below were computed independently from the RFC 7616 §3.4 formulas.
    func testVariants() {
        let base = DigestChallenge(realm: "sip.example.com", nonce: "abc")
        func response(
            _ c: DigestChallenge, method: String = "REGISTER", uri: String = "sip:sip.example.com", nc: UInt32 = 1, body: [UInt8] = []
        ) -> String {
            DigestAuthorization(
                answering: c, username: "alice", password: "secret", method: method, uri: uri, cnonce: "xyz",
                nonceCount: nc, body: body
            ).response
        }
        var c = base
        c.algorithm = .md5Sess
        XCTAssertEqual(response(c), "a13fa43f3899658f604ac045c2386738")
        c.algorithm = .sha256Sess
        XCTAssertEqual(response(c), "998bb36bf697f715cac848f2bc8432b80a14af68801ee9a24e22eab1581e191e")
        XCTAssertEqual(response(base, nc: 2), "fe5479ead6ead6b5984a5af8c41cb988")
        c = base
        c.qopOptions = ["auth-int"]
        XCTAssertEqual(
            response(c, method: "INVITE", uri: "sip:bob@example.com", body: Array("v=0\r\n".utf8)),
            "3e9daa3619f6694e2607bcb89ce67df9")
    }

    /// RFC 2069 compatibility: no qop, so no cnonce or nc on the wire.
    func testNoQOPAnswer() {
        let c = DigestChallenge(realm: "sip.example.com", nonce: "abc", qopOptions: [])
        let auth = DigestAuthorization(
            answering: c, username: "alice", password: "secret", method: "REGISTER", uri: "sip:sip.example.com",
            cnonce: "xyz", nonceCount: 1)
        XCTAssertEqual(auth.response, "c76ee5562e57a77b4e08c4adc429cdc3")
        XCTAssertNil(auth.cnonce)
        XCTAssertNil(auth.nonceCount)
        XCTAssertFalse(auth.headerValue.contains("nc="))
        XCTAssertFalse(auth.headerValue.contains("cnonce="))
        XCTAssertFalse(auth.headerValue.contains("qop="))
    }

    func testUserhash() {
        let c = DigestChallenge(realm: "sip.example.com", nonce: "abc", algorithm: .sha256, userhash: true)
        let auth = DigestAuthorization(
            answering: c, username: "alice", password: "secret", method: "REGISTER", uri: "sip:sip.example.com",
            cnonce: "xyz", nonceCount: 1)
        XCTAssertEqual(auth.username, "3ef6cae3778f461af4a4c6187df649a11a4dbf1e61a07ecf0dba06ceab83c9a1")
        XCTAssertTrue(auth.headerValue.hasSuffix("userhash=true"))
    }

    func testNonceCountIsEightHexDigits() {
        XCTAssertEqual(DigestAuthorization.hex8(1), "00000001")
        XCTAssertEqual(DigestAuthorization.hex8(255), "000000ff")
        XCTAssertEqual(DigestAuthorization.hex8(UInt32.max), "ffffffff")
    }

    func testQuotedValuesAreEscaped() {
        XCTAssertEqual(DigestAuthorization.quoted(#"a"b\c"#), #""a\"b\\c""#)
        let c = DigestChallenge(realm: #"r"x"#, nonce: "n")
        let auth = DigestAuthorization(
            answering: c, username: "u", password: "p", method: "INVITE", uri: "sip:a@b", cnonce: "c", nonceCount: 1)
        XCTAssertTrue(auth.headerValue.contains(#"realm="r\"x""#))
        // The escaped value parses back to the original realm.
        XCTAssertEqual(try DigestChallenge(parsing: "Digest realm=\(DigestAuthorization.quoted(#"r"x"#)), nonce=n").realm, #"r"x"#)
    }
}
