/// An SDP session description (RFC 8866, formerly RFC 4566): session-level lines and media sections.
///
/// Parse with ``init(parsing:limits:)``, write with ``text``. A value; safe to share between threads.
public struct SDPSessionDescription: Hashable, Sendable {
    /// Protocol version; always 0.
    public var version: Int
    /// The `o=` line.
    public var origin: SDPOrigin
    /// The `s=` line (`-` when there is nothing to say).
    public var sessionName: String
    /// The `i=` line.
    public var information: String?
    /// The `u=` line.
    public var uri: String?
    /// The `e=` lines.
    public var emails: [String]
    /// The `p=` lines.
    public var phones: [String]
    /// The session-level `c=` line, the default for every media section.
    public var connection: SDPConnection?
    /// The session-level `b=` lines.
    public var bandwidths: [SDPBandwidth]
    /// The `t=` lines with their `r=` lines; at least one.
    public var timings: [SDPTiming]
    /// The `z=` line, verbatim.
    public var timeZones: String?
    /// The session-level `k=` line (obsolete), verbatim.
    public var encryptionKey: String?
    /// Session-level `a=` lines, in order.
    public var attributes: [SDPAttribute]
    /// Media sections, in order.
    public var media: [SDPMediaDescription]

    /// Creates a description with `t=0 0` unless told otherwise.
    public init(
        origin: SDPOrigin, sessionName: String = "-", information: String? = nil, uri: String? = nil,
        emails: [String] = [], phones: [String] = [], connection: SDPConnection? = nil,
        bandwidths: [SDPBandwidth] = [], timings: [SDPTiming] = [SDPTiming()], timeZones: String? = nil,
        encryptionKey: String? = nil, attributes: [SDPAttribute] = [], media: [SDPMediaDescription] = []
    ) {
        self.version = 0
        self.origin = origin
        self.sessionName = sessionName
        self.information = information
        self.uri = uri
        self.emails = emails
        self.phones = phones
        self.connection = connection
        self.bandwidths = bandwidths
        self.timings = timings
        self.timeZones = timeZones
        self.encryptionKey = encryptionKey
        self.attributes = attributes
        self.media = media
    }

    /// The session-level direction attribute, if any.
    public var directionAttribute: SDPDirection? {
        attributes.lazy.compactMap { $0.value == nil ? SDPDirection(rawValue: $0.name) : nil }.first
    }

    /// The direction in force for `media`: its own attribute, else the session's, else sendrecv.
    public func direction(of media: SDPMediaDescription) -> SDPDirection {
        media.directionAttribute ?? directionAttribute ?? .sendrecv
    }

    /// The connection in force for `media`: its own `c=`, else the session's.
    public func connection(of media: SDPMediaDescription) -> SDPConnection? {
        media.connection ?? connection
    }
}
