import NIOCore
import NIOSSL

/// Settings of a ``SIPTransportLayer``.
public struct SIPTransportConfiguration: Sendable {
    /// TLS settings for connections we open. Default: certificate and host name verification
    /// against the system's trust store; set `trustRoots` to add a private CA.
    public var tlsClient: TLSConfiguration
    /// TLS settings for connections we accept: our certificate chain and key. Required to listen on TLS.
    public var tlsServer: TLSConfiguration?
    /// Parser limits for received messages.
    public var parserLimits: SIPMessageParser.Limits
    /// How long a TCP or TLS connect may take.
    public var connectTimeout: TimeAmount
    /// Most TCP/TLS connections open at once, inbound and outbound; more inbound ones are closed at once.
    public var maximumConnections: Int
    /// A connection with no traffic for this long is closed (RFC 5626 keep-alives count as traffic).
    public var idleConnectionTimeout: TimeAmount

    /// Creates a configuration.
    public init(
        tlsClient: TLSConfiguration = .makeClientConfiguration(),
        tlsServer: TLSConfiguration? = nil,
        parserLimits: SIPMessageParser.Limits = .init(),
        connectTimeout: TimeAmount = .seconds(5),
        maximumConnections: Int = 1024,
        idleConnectionTimeout: TimeAmount = .seconds(600)
    ) {
        self.tlsClient = tlsClient
        self.tlsServer = tlsServer
        self.parserLimits = parserLimits
        self.connectTimeout = connectTimeout
        self.maximumConnections = maximumConnections
        self.idleConnectionTimeout = idleConnectionTimeout
    }
}
