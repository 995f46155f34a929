import NIOCore
import VoiceSupport
import NIOSSL
import VoiceSIP

/// Settings of a ``SIPTransportLayer``.
public struct SIPTransportConfiguration: Sendable {
    /// TLS settings for connections we open. Default: certificate and host name verification
    /// against the system's trust store; set `trustRoots` to add a private CA.
    public var tlsClient: TLSConfiguration
    /// TLS settings for connections we accept: our certificate chain and key. Required to listen on TLS.
    public var tlsServer: TLSConfiguration?
    /// SHA-256 digests of the public keys a TLS server we connect to may prove (its
    /// certificate's SubjectPublicKeyInfo); empty: any key its verified certificate carries.
    package var pinnedPublicKeyDigests: [[UInt8]] = []
    /// Parser limits for received messages.
    package var parserLimits: SIPMessageParser.Limits = .init()
    /// How long a TCP or TLS connect may take.
    public var connectTimeout: Duration
    /// Most TCP/TLS connections open at once, inbound and outbound. When an inbound one would
    /// exceed it, the inbound connection that has gone longest without sending a complete
    /// message makes room, if one has sent none yet; otherwise the new one is closed.
    public var maximumConnections: Int
    /// Most inbound TCP/TLS connections from one IP address; more are closed at once.
    public var maximumConnectionsPerSource: Int
    /// A connection with no traffic for this long is closed (RFC 5626 keep-alives count as traffic).
    public var idleConnectionTimeout: Duration
    /// How long a message may take to arrive once its first byte has, and how long an inbound
    /// connection may stay open before its first complete message: slower ones are closed, so
    /// a byte now and then (slow-loris) cannot hold a connection.
    public var messageCompletionTimeout: Duration
    /// Most bytes of responses and requests waiting to be written to one connection. While the
    /// socket cannot take more, nothing more is read from the peer (backpressure); a peer that
    /// still gets this far behind (it sends but never reads) is disconnected.
    public var maximumPendingOutputBytes: Int
    /// The HTTP path of the WebSocket handshakes we send (`/sip` of `wss://proxy.example.com/sip`).
    package var webSocketPath = "/"
    /// How keep-alives go over a WebSocket we opened: WebSocket Pings (the default), or RFC 5626
    /// CRLF messages for servers that expect those.
    public var webSocketKeepAlive = SIPWebSocketKeepAlive.ping

    /// Creates a configuration.
    public init(
        tlsClient: TLSConfiguration = .makeClientConfiguration(),
        tlsServer: TLSConfiguration? = nil,
        connectTimeout: Duration = .seconds(5),
        maximumConnections: Int = 1024,
        maximumConnectionsPerSource: Int = 32,
        idleConnectionTimeout: Duration = .seconds(600),
        messageCompletionTimeout: Duration = .seconds(10),
        maximumPendingOutputBytes: Int = 1 << 20
    ) {
        self.tlsClient = tlsClient
        self.tlsServer = tlsServer
        self.connectTimeout = connectTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerSource = maximumConnectionsPerSource
        self.idleConnectionTimeout = idleConnectionTimeout
        self.messageCompletionTimeout = messageCompletionTimeout
        self.maximumPendingOutputBytes = maximumPendingOutputBytes
    }
}
