/// An SDP session description (RFC 8866, formerly RFC 4566): session-level lines and media sections.
///
/// Parse with ``init(parsing:limits:)``, write with ``text``. A value; safe to share between threads.
package struct SDPSessionDescription: Hashable, Sendable {
    /// Protocol version; always 0.
    package var version: Int
    /// The `o=` line.
    package var origin: SDPOrigin
    /// The `s=` line (`-` when there is nothing to say).
    package var sessionName: String
    /// The `i=` line.
    package var information: String?
    /// The `u=` line.
    package var uri: String?
    /// The `e=` lines.
    package var emails: [String]
    /// The `p=` lines.
    package var phones: [String]
    /// The session-level `c=` line, the default for every media section.
    package var connection: SDPConnection?
    /// The session-level `b=` lines.
    package var bandwidths: [SDPBandwidth]
    /// The `t=` lines with their `r=` lines; at least one.
    package var timings: [SDPTiming]
    /// The `z=` line, verbatim.
    package var timeZones: String?
    /// The session-level `k=` line (obsolete), verbatim.
    package var encryptionKey: String?
    /// Session-level `a=` lines, in order.
    package var attributes: [SDPAttribute]
    /// Media sections, in order.
    package var media: [SDPMediaDescription]

    /// Creates a description with `t=0 0` unless told otherwise.
    package init(
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
    package var directionAttribute: SDPDirection? {
        attributes.lazy.compactMap { $0.value == nil ? SDPDirection(rawValue: $0.name) : nil }.first
    }

    /// The direction in force for `media`: its own attribute, else the session's, else sendrecv.
    package func direction(of media: SDPMediaDescription) -> SDPDirection {
        media.directionAttribute ?? directionAttribute ?? .sendrecv
    }

    /// The connection in force for `media`: its own `c=`, else the session's.
    package func connection(of media: SDPMediaDescription) -> SDPConnection? {
        media.connection ?? connection
    }
}
