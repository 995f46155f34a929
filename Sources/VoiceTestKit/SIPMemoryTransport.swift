import VoiceEmbedded
import NIOCore
import VoiceSIP
import VoiceSIPAgent

/// A SIP transport on a ``SIPMemoryNetwork``: UDP and TCP (TLS is not offered). Its events
/// come as a socket transport's do: messages with their source (for TCP, the connection's far
/// end, so a reply goes back on it), malformed bytes, keep-alive answers, lost connections.
package final class SIPMemoryTransport: SIPTransport, @unchecked Sendable {
    // @unchecked: every var is touched on `eventLoop` only.
    private let network: SIPMemoryNetwork
    private let onEvent: @Sendable (SIPTransportEvent) -> Void
    private let parser = SIPMessageParser()
    /// Where it listens, per transport.
    private var listening: [SIPTransportProtocol: SIPTransportEndpoint] = [:]
    /// Open connections by the far end's address, with the framer of what arrives on each.
    private var connections: [SIPTransportEndpoint: (connection: SIPMemoryConnection, framer: SIPStreamFramer)] = [:]
    private var isShutDown = false

    init(network: SIPMemoryNetwork, onEvent: @escaping @Sendable (SIPTransportEvent) -> Void) {
        self.network = network
        self.onEvent = onEvent
    }

    package var eventLoop: any EventLoop { network.loop }

    /// Runs `body` at once when called on the loop (a test on an embedded loop's thread then
    /// waits on a completed future, not on one only the loop it blocks would complete), else on
    /// the loop.
    private func onLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        guard eventLoop.inEventLoop else { return eventLoop.submit(body) }
        return eventLoop.makeCompletedFuture(Result { try body() })
    }

    package func listen(_ transport: SIPTransportProtocol, host: String, port: Int) -> EventLoopFuture<SIPTransportEndpoint> {
        onLoop { () throws -> SIPTransportEndpoint in
            guard transport == .udp || transport == .tcp else {
                throw SIPTransportError(.unsupportedTransport, "the memory network carries UDP and TCP only")
            }
            guard !self.isShutDown else { throw SIPTransportError(.shutDown, "transport is shut down") }
            let endpoint = try self.network.bind(self, transport, host: host, port: port)
            self.listening[transport] = endpoint
            return endpoint
        }
    }

    package func send(_ bytes: [UInt8], to destination: SIPTransportEndpoint, serverName: String?) -> EventLoopFuture<Void> {
        // Always as a task, as a socket transport's send is: the message leaves after what the
        // caller is doing now.
        eventLoop.submit { () throws in
            guard !self.isShutDown else { throw SIPTransportError(.shutDown, "transport is shut down") }
            switch destination.transport {
            case .udp:
                guard let local = self.listening[.udp] else { throw SIPTransportError(.shutDown, "not listening for UDP") }
                self.network.send(bytes, from: local, to: destination)
            case .tcp:
                try self.write(bytes, to: destination)
            case .tls, .ws, .wss:
                throw SIPTransportError(.unsupportedTransport, "the memory network carries UDP and TCP only")
            }
        }
    }

    private func write(_ bytes: [UInt8], to destination: SIPTransportEndpoint) throws(SIPTransportError) {
        if let open = connections[destination] {
            network.write(bytes, on: open.connection, from: end(of: open.connection))
            return
        }
        guard let host = (listening[.tcp] ?? listening[.udp])?.host else {
            throw SIPTransportError(.shutDown, "not listening")
        }
        let connection = try network.connect(from: self, host: host, to: destination)
        connections[destination] = (connection, SIPStreamFramer(parser: parser))
        network.write(bytes, on: connection, from: connection.opener)
    }

    /// This transport's end of `connection`.
    private func end(of connection: SIPMemoryConnection) -> SIPMemoryConnection.End {
        connection.opener.transport === self ? connection.opener : connection.acceptor
    }

    /// A connection to our TCP listener opened.
    func accept(_ connection: SIPMemoryConnection) {
        connections[connection.acceptor.remote] = (connection, SIPStreamFramer(parser: parser))
    }

    func receive(_ bytes: [UInt8], from source: SIPTransportEndpoint) {
        guard !isShutDown else { return }
        // A keep-alive (CRLF) is not a message.
        if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) { return }
        do {
            onEvent(.received(try parser.parse(datagram: bytes), source: source))
        } catch {
            onEvent(.malformed(error, bytes: bytes, source: source))
        }
    }

    /// Bytes arrived on `connection` at our end `end`: framed as a stream is.
    func receive(_ bytes: [UInt8], on connection: SIPMemoryConnection, at end: SIPMemoryConnection.End) {
        let remote = end.remote
        guard !isShutDown, var open = connections[remote], open.connection === connection else { return }
        open.framer.append(bytes)
        while true {
            let frame: SIPStreamFramer.Frame?
            do {
                frame = try open.framer.next()
            } catch {
                let rest = open.framer.drainBuffered()
                connections[remote] = open
                onEvent(.malformed(error, bytes: rest, source: remote))
                close(remote, error: SIPTransportError(.connectionClosed, "unframeable stream: \(error)"))
                return
            }
            guard let frame else { break }
            switch frame {
            case .message(let message): onEvent(.received(message, source: remote))
            case .malformed(let error, let bytes): onEvent(.malformed(error, bytes: bytes, source: remote))
            case .keepAlivePing: network.write(Array("\r\n".utf8), on: connection, from: end)
            case .keepAlivePong: onEvent(.keepAliveAnswered(source: remote))
            }
            // An event handler may have closed the connection.
            guard connections[remote]?.connection === connection else { return }
        }
        connections[remote] = open
    }

    /// The far end closed `connection`.
    func peerClosed(_ connection: SIPMemoryConnection, at end: SIPMemoryConnection.End) {
        guard connections[end.remote]?.connection === connection else { return }
        connections[end.remote] = nil
        if !isShutDown { onEvent(.connectionClosed(remote: end.remote, error: nil)) }
    }

    /// Forgets the connection to `remote`, reports it lost and tells the far end.
    private func close(_ remote: SIPTransportEndpoint, error: SIPTransportError? = nil) {
        guard let open = connections.removeValue(forKey: remote) else { return }
        network.close(open.connection, from: end(of: open.connection))
        if !isShutDown { onEvent(.connectionClosed(remote: remote, error: error)) }
    }

    package func isConnected(to remote: SIPTransportEndpoint) -> Bool { connections[remote] != nil }

    package func hasConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Bool> {
        onLoop { self.isConnected(to: remote) }
    }

    package func closeConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Void> {
        onLoop { self.close(remote) }
    }

    package func closeAllConnections() -> EventLoopFuture<Void> {
        onLoop {
            for remote in Array(self.connections.keys) { self.close(remote) }
        }
    }

    package func verifiedTLSNames(of remote: SIPTransportEndpoint) -> Set<String> { [] }

    /// Closes every connection (their far ends see them lost) and stops listening.
    package func shutdown() -> EventLoopFuture<Void> {
        onLoop {
            self.isShutDown = true
            for remote in Array(self.connections.keys) { self.close(remote) }
            for endpoint in self.listening.values { self.network.unbind(endpoint) }
            self.listening = [:]
        }
    }
}
