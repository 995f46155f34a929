import VoiceMediaTypes
import VoiceSupport

/// An `a=` line: `a=<name>` (a flag) or `a=<name>:<value>`.
///
/// Attributes are kept in order and verbatim, so a description round-trips. The parser checks the
/// ones this stack acts on (`rtpmap`, `fmtp`, `ptime`, `maxptime`, `rtcp`, direction, `rtcp-mux`);
/// typed views live on ``SDPMediaDescription``. `crypto` lines are checked when negotiating, since
/// RFC 4568 lets an answerer skip lines it does not understand.
package struct SDPAttribute: Hashable, Sendable {
    /// The attribute name, e.g. `rtpmap`.
    package var name: String
    /// The value after the first `:`, or nil for a flag.
    package var value: String?

    /// Creates an attribute.
    package init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The line text after `a=`.
    package var text: String { value.map { "\(name):\($0)" } ?? name }

    /// `a=rtpmap:<pt> <name>/<rate>[/<channels>]`.
    package static func rtpmap(_ map: SDPRTPMap) -> SDPAttribute { SDPAttribute(name: "rtpmap", value: map.value) }
    /// `a=fmtp:<pt> <parameters>`.
    package static func fmtp(_ fmtp: SDPFormatParameters) -> SDPAttribute { SDPAttribute(name: "fmtp", value: fmtp.value) }
    /// `a=ptime:<ms>`.
    package static func ptime(_ ms: Int) -> SDPAttribute { SDPAttribute(name: "ptime", value: String(ms)) }
    /// `a=maxptime:<ms>`.
    package static func maxptime(_ ms: Int) -> SDPAttribute { SDPAttribute(name: "maxptime", value: String(ms)) }
    /// `a=sendrecv`, `a=sendonly`, `a=recvonly` or `a=inactive`.
    package static func direction(_ direction: SDPDirection) -> SDPAttribute { SDPAttribute(name: direction.rawValue) }
    /// `a=rtcp-mux` (RFC 5761).
    package static let rtcpMux = SDPAttribute(name: "rtcp-mux")
    /// `a=rtcp:<port>[ IN <addrtype> <address>]` (RFC 3605).
    package static func rtcp(_ rtcp: SDPRTCPAttribute) -> SDPAttribute { SDPAttribute(name: "rtcp", value: rtcp.value) }
    /// `a=crypto:<tag> <suite> inline:<key>` (RFC 4568). The value holds the key: never log it.
    package static func crypto(_ crypto: SDESCryptoAttribute) -> SDPAttribute {
        SDPAttribute(name: "crypto", value: crypto.attributeValue)
    }
}
