import VoiceSIP
import VoiceSupport
/// Why the transport layer could not send or receive.
package struct SIPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    package struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The kind's name.
        package let name: String
        init(_ name: String) { self.name = name }
        package var description: String { name }

        /// A host or port that is not a valid address.
        package static let invalidAddress = Kind("invalid address")
        /// The host name did not resolve.
        package static let dnsResolution = Kind("DNS resolution failed")
        /// Listening on the local address failed (in use, not local, no permission).
        package static let bindFailed = Kind("bind failed")
        /// The TCP or TLS connection could not be set up (refused, unreachable, timed out).
        package static let connectFailed = Kind("connect failed")
        /// The TLS handshake failed, e.g. the server certificate did not verify.
        package static let tlsFailed = Kind("TLS failed")
        /// The connection closed or reset.
        package static let connectionClosed = Kind("connection closed")
        /// An ICMP error came back for a datagram: nothing listens at the port, or the host or
        /// network cannot be reached.
        package static let unreachable = Kind("unreachable")
        /// Writing to the socket failed.
        package static let sendFailed = Kind("send failed")
        /// The message is larger than a datagram may be.
        package static let messageTooLarge = Kind("message too large")
        /// The transport has no listener or configuration for this protocol.
        package static let unsupportedTransport = Kind("unsupported transport")
        /// Too many connections are open.
        package static let tooManyConnections = Kind("too many connections")
        /// The transport layer was shut down.
        package static let shutDown = Kind("shut down")
    }

    /// The class of failure.
    package let kind: Kind
    /// What happened, for logs.
    package let detail: String

    /// Creates an error.
    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var description: String { "\(kind): \(detail)" }

    /// How the transaction user reports it: DNS, connection and transport failures (31530, 31005, 31009).
    package var failure: SIPFailure {
        switch kind {
        case .dnsResolution: return .dnsResolutionFailure
        case .connectFailed, .tlsFailed, .connectionClosed, .tooManyConnections: return .connectionError
        default: return .transportError
        }
    }
}
