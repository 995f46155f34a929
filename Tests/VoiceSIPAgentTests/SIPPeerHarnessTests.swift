import Foundation
import VoiceMedia
@testable import VoiceTestKit
import XCTest
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

extension XCTestCase {
    /// Skips the test when the peer binary `name` is missing, except under `CI=true`, where a
    /// missing peer fails the test.
    func requirePeer(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try require([SIPPeerRequirement.check(name)], file: file, line: line)
    }

    /// Goes on when every requirement is met (a peer, root for namespaces); skips at the first
    /// that is not, except under `CI=true`, where it fails the test.
    func require(_ requirements: [SIPPeerRequirement], file: StaticString = #filePath, line: UInt = #line) throws {
        for requirement in requirements {
            switch requirement {
            case .available:
                continue
            case .skip(let message):
                throw XCTSkip(message, file: file, line: line)
            case .fail(let message):
                XCTFail(message, file: file, line: line)
                throw SIPPeerError(.notInstalled, message)
            }
        }
    }
}

/// Reads the few parts of hand-written SIP exchanges the interop tests check. Line based,
/// bounded, and only for tests: the real parser lives in the message layer.
enum SIPPeerHarnessText {
    /// The status code of a response, nil for requests or garbage.
    static func statusCode(_ message: String) -> Int? {
        guard message.hasPrefix("SIP/2.0 "), message.utf8.count <= 65_535 else { return nil }
        let code = message.dropFirst(8).prefix(3)
        return code.count == 3 ? Int(code) : nil
    }

    /// The first value of header `name` (case-insensitive, no compact forms), nil if absent.
    static func header(_ name: String, in message: String) -> String? {
        let head = message.components(separatedBy: "\r\n\r\n").first ?? ""
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The body after the blank line.
    static func body(_ message: String) -> String {
        guard let range = message.range(of: "\r\n\r\n") else { return "" }
        return String(message[range.upperBound...])
    }

    /// A quoted or token parameter (`realm="x"`, `tag=y`) inside a header value.
    static func parameter(_ name: String, in value: String) -> String? {
        guard let range = value.range(of: name + "=") else { return nil }
        let rest = value[range.upperBound...]
        if rest.first == "\"" {
            return rest.dropFirst().prefix { $0 != "\"" }.description
        }
        return rest.prefix { $0 != ";" && $0 != "," && $0 != " " && $0 != ">" }.description
    }
}

/// RFC 1321 MD5, for computing digest responses in tests (no crypto library in this target).
enum SIPPeerHarnessMD5 {
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]
    private static let table: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }

    /// The lowercase hex MD5 of the UTF-8 bytes of `text`.
    static func hex(_ text: String) -> String {
        var message = Array(text.utf8)
        let bitLength = UInt64(message.count) * 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }
        var a0: UInt32 = 0x6745_2301, b0: UInt32 = 0xefcd_ab89, c0: UInt32 = 0x98ba_dcfe, d0: UInt32 = 0x1032_5476
        for chunk in stride(from: 0, to: message.count, by: 64) {
            var m = [UInt32](repeating: 0, count: 16)
            for i in 0..<16 {
                let j = chunk + i * 4
                m[i] = UInt32(message[j]) | UInt32(message[j + 1]) << 8 | UInt32(message[j + 2]) << 16 | UInt32(message[j + 3]) << 24
            }
            var a = a0, b = b0, c = c0, d = d0
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: f = (b & c) | (~b & d); g = i
                case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * i) % 16
                }
                f = f &+ a &+ table[i] &+ m[g]
                a = d; d = c; c = b
                b = b &+ ((f << shifts[i]) | (f >> (32 - shifts[i])))
            }
            a0 = a0 &+ a; b0 = b0 &+ b; c0 = c0 &+ c; d0 = d0 &+ d
        }
        return [a0, b0, c0, d0].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
            .map { String(format: "%02x", $0) }.joined()
    }

    /// The RFC 2617 digest response without qop: MD5(HA1:nonce:HA2).
    static func digestResponse(user: String, realm: String, password: String, method: String, uri: String, nonce: String) -> String {
        hex("\(hex("\(user):\(realm):\(password)")):\(nonce):\(hex("\(method):\(uri)"))")
    }
}

final class SIPPeerHarnessTests: XCTestCase {
    func testMD5MatchesRFC1321TestSuite() {
        let vectors = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (input, digest) in vectors { XCTAssertEqual(SIPPeerHarnessMD5.hex(input), digest, input) }
    }

    func testMD5OfRFC2617ExampleHA1() {
        // RFC 2617 section 3.5: HA1 = MD5("Mufasa:testrealm@host.com:Circle Of Life").
        XCTAssertEqual(SIPPeerHarnessMD5.hex("Mufasa:testrealm@host.com:Circle Of Life"), "939e7578ed9e3c518a452acee763bce9")
    }

    func testMissingPeerSkipsLocallyAndFailsOnCI() {
        let missing: (String) -> Bool = { _ in false }
        guard case .skip(let message) = SIPPeerRequirement.check("baresip", environment: [:], isInstalled: missing) else {
            return XCTFail("a missing peer outside CI must skip")
        }
        XCTAssertTrue(message.contains("baresip"))
        guard case .fail = SIPPeerRequirement.check("baresip", environment: ["CI": "true"], isInstalled: missing) else {
            return XCTFail("a missing peer under CI=true must fail")
        }
        XCTAssertEqual(SIPPeerRequirement.check("kamailio", environment: ["CI": "true"], isInstalled: { _ in true }), .available)
        guard case .skip = SIPPeerRequirement.check("baresip", environment: ["CI": "false"], isInstalled: missing) else {
            return XCTFail("CI=false is not CI")
        }
    }

    func testIsInstalledFindsBinariesOnPathAndRejectsUnknownNames() {
        XCTAssertTrue(SIPPeerProcess.isInstalled("sh"))
        XCTAssertFalse(SIPPeerProcess.isInstalled("no-such-sip-peer-binary"))
        XCTAssertFalse(SIPPeerProcess.isInstalled("/nonexistent/baresip"))
    }

    func testTemplateFillsPlaceholdersAndRejectsUnfilledOnes() throws {
        XCTAssertEqual(
            try SIPPeerTemplate.render("listen=@@HOST@@:@@PORT@@", values: ["HOST": "127.0.0.1", "PORT": "5060"]),
            "listen=127.0.0.1:5060")
        XCTAssertThrowsError(try SIPPeerTemplate.render("a @@MISSING@@ b", values: [:])) { error in
            XCTAssertEqual((error as? SIPPeerError)?.kind, .invalidTemplate)
            XCTAssertTrue("\(error)".contains("MISSING"))
        }
        XCTAssertThrowsError(try SIPPeerTemplate.renderFile("/nonexistent/template", to: "/tmp/x", values: [:])) { error in
            XCTAssertEqual((error as? SIPPeerError)?.kind, .invalidTemplate)
        }
    }

    func testValuesThatCouldInjectConfigurationAreRejected() {
        for bad in ["", "pass\"word", "a\nmodule x.so", "a;b", String(repeating: "x", count: 300)] {
            XCTAssertThrowsError(try SIPPeerTemplate.validate(bad, as: "password"), bad) { error in
                XCTAssertEqual((error as? SIPPeerError)?.kind, .invalidValue)
            }
        }
        XCTAssertNoThrow(try SIPPeerTemplate.validate("opus/48000/2", as: "codec"))
    }

    func testFreePortIsBindableForUDP() throws {
        let port = try SIPPeerProcess.freePort()
        XCTAssertGreaterThan(port, 0)
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: port))
        XCTAssertEqual(socket.localAddress.port, port)
        let range = try SIPPeerProcess.freeUDPPortRange(count: 10)
        XCTAssertEqual(range.count, 10)
        XCTAssertEqual(range.lowerBound % 2, 0)
        // Both stay below the ephemeral range, where our own port-0 binds could take them first.
        let ephemeral = SIPPeerProcess.ephemeralPortsStart
        XCTAssertLessThan(port, ephemeral)
        XCTAssertLessThan(range.upperBound, ephemeral)
        XCTAssertFalse(SIPPeerProcess.listeningPorts.overlaps(SIPPeerProcess.mediaPorts))
    }

    func testStopTerminatesTheProcessAndLogIsKept() throws {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "sippeer-test")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = try SIPPeerProcess(
            name: "sh", executable: "sh", arguments: ["-c", "echo started; exec sleep 30"],
            workingDirectory: directory, logPath: directory + "/sh.log")
        XCTAssertTrue(process.isRunning)
        let deadline = ContinuousClock.now + .seconds(3)
        while !process.log.contains("started") && ContinuousClock.now < deadline { usleep(10_000) }
        let started = ContinuousClock.now
        process.stop()
        XCTAssertFalse(process.isRunning)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        XCTAssertEqual(kill(process.pid, 0), -1, "the process must be gone")
        XCTAssertTrue(process.log.contains("started"))
        process.stop()  // idempotent
    }

    func testProcessIgnoringSIGTERMIsKilledAfterGrace() throws {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "sippeer-test")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = try SIPPeerProcess(
            name: "sh", executable: "sh",
            arguments: ["-c", "trap '' TERM; echo ready; while true; do sleep 0.1; done"],
            workingDirectory: directory, logPath: directory + "/sh.log")
        let deadline = ContinuousClock.now + .seconds(3)
        while !process.log.contains("ready") && ContinuousClock.now < deadline { usleep(10_000) }
        process.stop(grace: .milliseconds(300))
        XCTAssertFalse(process.isRunning)
        XCTAssertEqual(kill(process.pid, 0), -1)
    }

    func testSilentProcessIsNotReadyWithinTheTimeout() throws {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "sippeer-test")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = try SIPPeerProcess(
            name: "sleep", executable: "sleep", arguments: ["30"],
            workingDirectory: directory, logPath: directory + "/sleep.log")
        defer { process.stop() }
        let address = try SocketAddress(host: "127.0.0.1", port: try SIPPeerProcess.freePort())
        let started = ContinuousClock.now
        XCTAssertThrowsError(try process.waitUntilReady(optionsTo: address, requestURI: "sip:127.0.0.1", timeout: .milliseconds(600))) {
            error in
            XCTAssertEqual((error as? SIPPeerError)?.kind, .notReady)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
    }

    func testProcessThatExitsIsReportedWithItsLog() throws {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "sippeer-test")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = try SIPPeerProcess(
            name: "sh", executable: "sh", arguments: ["-c", "echo bad config; exit 3"],
            workingDirectory: directory, logPath: directory + "/sh.log")
        defer { process.stop() }
        let address = try SocketAddress(host: "127.0.0.1", port: try SIPPeerProcess.freePort())
        XCTAssertThrowsError(try process.waitUntilReady(optionsTo: address, requestURI: "sip:127.0.0.1", timeout: .seconds(5))) { error in
            XCTAssertEqual((error as? SIPPeerError)?.kind, .exitedEarly)
            XCTAssertTrue("\(error)".contains("bad config"))
        }
    }

    func testMissingBinaryIsNotInstalled() {
        XCTAssertThrowsError(
            try SIPPeerProcess(
                name: "x", executable: "no-such-sip-peer-binary", arguments: [],
                workingDirectory: "/tmp", logPath: "/tmp/no-such-peer.log")
        ) { error in
            XCTAssertEqual((error as? SIPPeerError)?.kind, .notInstalled)
        }
    }

    func testHarnessTextReadsStatusHeadersAndParameters() {
        let response =
            "SIP/2.0 401 Unauthorized\r\nWWW-Authenticate: Digest realm=\"r.test\", nonce=\"abc=\"\r\nTo: <sip:a@b>;tag=xyz\r\n\r\nbody"
        XCTAssertEqual(SIPPeerHarnessText.statusCode(response), 401)
        XCTAssertNil(SIPPeerHarnessText.statusCode("OPTIONS sip:x SIP/2.0\r\n\r\n"))
        XCTAssertNil(SIPPeerHarnessText.statusCode("SIP/2.0 4"))
        let auth = SIPPeerHarnessText.header("www-authenticate", in: response) ?? ""
        XCTAssertEqual(SIPPeerHarnessText.parameter("realm", in: auth), "r.test")
        XCTAssertEqual(SIPPeerHarnessText.parameter("nonce", in: auth), "abc=")
        XCTAssertEqual(SIPPeerHarnessText.parameter("tag", in: SIPPeerHarnessText.header("To", in: response) ?? ""), "xyz")
        XCTAssertEqual(SIPPeerHarnessText.body(response), "body")
        XCTAssertNil(SIPPeerHarnessText.header("Contact", in: response))
    }
}
