import Foundation
import VoiceRTP
import VoiceSIP
import VoiceTestKit
import XCTest

/// A hand-written SIP server on a loopback UDP socket: the test reads the client's requests and
/// answers each as it likes (a challenge, a 200), without our stack on the server's side.
/// Use from the test's thread.
final class SIPStubServer {
    let channel: SIPPeerUDPChannel
    private let parser = SIPMessageParser()

    init() throws {
        channel = try SIPPeerUDPChannel()
    }

    /// `127.0.0.1:port`, to configure as the client's registrar or outbound proxy.
    var hostPort: String { "127.0.0.1:\(channel.localAddress.port)" }

    /// The next request with `method` whose CSeq is above `cseq`, skipping retransmissions of
    /// earlier ones and other methods; fails the test when none comes within `timeout`.
    func nextRequest(
        _ method: SIPMethod, after cseq: UInt32 = 0, timeout: Duration = .seconds(10),
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> SIPRequest {
        var found: SIPRequest?
        _ = channel.receive(timeout: timeout) { text in
            guard case .request(let request) = try? self.parser.parse(datagram: Array(text.utf8)),
                request.method == method, let sequence = try? request.headers.cseq(), sequence.sequence > cseq
            else { return false }
            found = request
            return true
        }
        return try XCTUnwrap(found, "no \(method) arrived", file: file, line: line)
    }

    /// Answers `request` with `status` and `headers`, to where its top Via says.
    func reply(_ request: SIPRequest, _ status: Int, headers: [(String, String)] = []) throws {
        var response = SIPResponse(replyingTo: request, statusCode: status, toTag: status == 100 ? nil : "stub1")
        for (name, value) in headers { response.headers.add(name, value) }
        response.headers.set("Content-Length", "0")
        let via = try request.headers.topVia()
        let port = via.rport ?? via.port ?? 5060
        try channel.send(String(decoding: response.serialized(), as: UTF8.self), to: SocketAddress(host: "127.0.0.1", port: port))
    }

    /// Answers a REGISTER with 200, its Contact bound for `expires` seconds (0 for an unregistration).
    func acceptRegistration(_ request: SIPRequest, expires: Int = 600) throws {
        let contact = try XCTUnwrap(request.headers.first("Contact"), "the REGISTER has a Contact")
        try reply(request, 200, headers: [("Contact", contact + ";expires=\(expires)")])
    }
}
