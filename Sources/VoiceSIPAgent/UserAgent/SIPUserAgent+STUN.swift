import VoiceAddress
import VoiceSTUN
import NIOCore
import VoiceNetwork
import VoiceSIP
import VoiceSupport

// The server-reflexive address of the UDP SIP socket (RFC 5389), for a client behind a NAT.
extension SIPUserAgent {
    /// Asks the configured STUN server, from the UDP SIP socket itself, where its packets come
    /// from: the NAT's address and port, which Contact and Via should carry. Retransmits at
    /// 0, 250 and 750 ms and fails with ``STUNError/timedOut`` at 1.5 s (as
    /// ``STUNBindingClient`` does for media ports).
    package func discoverSignalingAddress() -> EventLoopFuture<TransportAddress> {
        jobs.flatSubmit {
            guard let server = self.configuration.stunServer,
                let address = try? NIOCore.SocketAddress(ipAddress: server.ip.description, port: Int(server.port))
            else { return self.eventLoop.makeFailedFuture(STUNError.noMappedAddress) }
            let destination = SIPTransportEndpoint(transport: .udp, address: address)
            var generator = SecureRandomNumberGenerator()
            let request = STUNMessage.bindingRequest(using: &generator)
            let promise = self.eventLoop.makePromise(of: TransportAddress.self)
            self.stunWaiters[request.transactionID] = promise
            for delay in STUNBindingClient.retransmissions {
                self.eventLoop.scheduleTask(in: .milliseconds(delay)) {
                    guard self.stunWaiters[request.transactionID] != nil else { return }
                    _ = self.transport.send(request.serialized, to: destination, serverName: nil)
                }
            }
            self.eventLoop.scheduleTask(in: .milliseconds(STUNBindingClient.timeout)) {
                self.stunWaiters.removeValue(forKey: request.transactionID)?.fail(STUNError.timedOut)
            }
            return promise.futureResult
        }
    }

    /// A STUN message arrived on the SIP socket: the answer to one of our Binding requests, or
    /// nothing we asked for (dropped).
    func stunReceived(_ bytes: [UInt8]) {
        guard let message = try? STUNMessage(parsing: bytes), message.type != .bindingRequest,
            let waiter = stunWaiters.removeValue(forKey: message.transactionID)
        else { return }
        waiter.completeWith(Result { () throws(STUNError) in try TransportAddress(stunResponse: message) })
    }

    /// From now on Contact and Via carry `host` and `port` (a NAT's, learned with STUN) instead
    /// of the bound address. Before any call or registration; later changes go through
    /// ``moveLocalAddress(to:port:)``.
    package func advertise(host: String, port: Int?) -> EventLoopFuture<Void> {
        jobs.submit {
            self.advertisedHost = host
            self.advertisedPort = port
        }
    }
}
