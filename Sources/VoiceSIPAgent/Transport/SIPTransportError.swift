import VoiceSIP
import VoiceSupport
/// Why the transport layer could not send or receive.
public struct SIPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The kind's name.
        public let name: String
        init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A host or port that is not a valid address.
        public static let invalidAddress = Kind("invalid address")
        /// The host name did not resolve.
        public static let dnsResolution = Kind("DNS resolution failed")
        /// Listening on the local address failed (in use, not local, no permission).
        public static let bindFailed = Kind("bind failed")
        /// The TCP or TLS connection could not be set up (refused, unreachable, timed out).
        public static let connectFailed = Kind("connect failed")
        /// The TLS handshake failed, e.g. the server certificate did not verify.
        public static let tlsFailed = Kind("TLS failed")
        /// The connection closed or reset.
        public static let connectionClosed = Kind("connection closed")
        /// An ICMP error came back for a datagram: nothing listens at the port, or the host or
        /// network cannot be reached.
        public static let unreachable = Kind("unreachable")
        /// Writing to the socket failed.
        public static let sendFailed = Kind("send failed")
        /// The message is larger than a datagram may be.
        public static let messageTooLarge = Kind("message too large")
        /// The transport has no listener or configuration for this protocol.
        public static let unsupportedTransport = Kind("unsupported transport")
        /// Too many connections are open.
        public static let tooManyConnections = Kind("too many connections")
        /// The transport layer was shut down.
        public static let shutDown = Kind("shut down")
    }

    /// The class of failure.
    public let kind: Kind
    /// What happened, for logs.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind): \(detail)" }

    /// How the transaction user reports it: DNS, connection and transport failures (31530, 31005, 31009).
    public var failure: SIPFailure {
        switch kind {
        case .dnsResolution: return .dnsResolutionFailure
        case .connectFailed, .tlsFailed, .connectionClosed, .tooManyConnections: return .connectionError
        default: return .transportError
        }
    }
}
