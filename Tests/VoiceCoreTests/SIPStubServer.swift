import VoiceEmbedded
import Foundation
import VoiceRTP
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport
import VoiceTestKit
import XCTest

/// A hand-written SIP server: the test reads the client's requests and answers each as it likes
/// (a challenge, a 200), without our stack on the server's side. On a loopback UDP socket, or in
/// a ``VirtualCallWorld``'s SIP network (its waits then move virtual time). Use from the test's
/// thread.
final class SIPStubServer {
    private let channel: SIPPeerUDPChannel?
    private let memory: (transport: any SIPTransport, endpoint: SIPTransportEndpoint)?
    /// What reached the in-memory server, oldest first, not yet taken.
    private let inbox = Locked<[String]>([])
    private let parser = SIPMessageParser()

    /// A server on a loopback UDP socket.
    init() throws {
        channel = try SIPPeerUDPChannel()
        memory = nil
    }

    /// A server at port 5060 of a host of its own in `world`.
    init(world: VirtualCallWorld) throws {
        channel = nil
        let inbox = self.inbox
        let transport = try world.sipNetwork.transportFactory { event in
            if case .received(let message, _) = event { inbox.withLock { $0.append(String(decoding: message.serialized(), as: UTF8.self)) } }
        }
        let listening = transport.listen(.udp, host: world.makeHost(), port: 5060)
        world.settle()
        memory = (transport, try listening.wait())
    }

    /// `host:port`, to configure as the client's registrar or outbound proxy.
    var hostPort: String {
        if let memory { return "\(memory.endpoint.hostForURI):\(memory.endpoint.port)" }
        return "127.0.0.1:\(channel?.localAddress.port ?? 0)"
    }

    /// Waits up to `timeout` for a message that `accept` takes, dropping the others; nil when
    /// none comes.
    func receive(timeout: Duration, where accept: @escaping (String) -> Bool) -> String? {
        if let channel { return channel.receive(timeout: timeout, where: accept) }
        var found: String?
        _ = PollingWait.until(timeout: MediaTime(timeout).seconds) {
            self.inbox.withLock { list in
                while !list.isEmpty {
                    let next = list.removeFirst()
                    if accept(next) {
                        found = next
                        return true
                    }
                }
                return false
            }
        }
        return found
    }

    /// The next request with `method` whose CSeq is above `cseq`, skipping retransmissions of
    /// earlier ones and other methods; fails the test when none comes within `timeout`.
    func nextRequest(
        _ method: SIPMethod, after cseq: UInt32 = 0, timeout: Duration = .seconds(10),
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> SIPRequest {
        var found: SIPRequest?
        _ = receive(timeout: timeout) { text in
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
        if let memory {
            let destination = try SIPTransportEndpoint(transport: .udp, ip: via.received ?? via.host, port: port)
            _ = memory.transport.send(response.serialized(), to: destination, serverName: nil)
        } else {
            try channel?.send(String(decoding: response.serialized(), as: UTF8.self), to: SocketAddress(host: "127.0.0.1", port: port))
        }
    }

    /// Answers a REGISTER with 200, its Contact bound for `expires` seconds (0 for an unregistration).
    func acceptRegistration(_ request: SIPRequest, expires: Int = 600) throws {
        let contact = try XCTUnwrap(request.headers.first("Contact"), "the REGISTER has a Contact")
        try reply(request, 200, headers: [("Contact", contact + ";expires=\(expires)")])
    }
}
