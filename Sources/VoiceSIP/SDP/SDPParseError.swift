/// Why an SDP body (RFC 8866, formerly RFC 4566) was rejected by ``SDPSessionDescription/init(parsing:limits:)``.
///
/// ``kind`` says what went wrong, ``line`` where (1-based; 0 when the problem is the body as a
/// whole), ``detail`` adds the offending text, truncated. Value type; safe to share between threads.
package struct SDPParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of problem.
    package enum Kind: Hashable, Sendable {
        /// The body is larger than ``SDPParserLimits/maxBodyBytes``.
        case bodyTooLarge
        /// A line is longer than ``SDPParserLimits/maxLineBytes``.
        case lineTooLong
        /// More lines, media sections, attributes or formats than the limits allow.
        case tooManyItems
        /// The body is empty.
        case empty
        /// A line is not `<type>=<value>`, or holds a control character.
        case malformedLine
        /// The type letter is not one SDP defines; RFC 8866 §5 says to ignore the whole description.
        case unknownLineType
        /// A line appears where SDP's fixed order does not allow it, or a single line is repeated.
        case misplacedLine
        /// The first line is not `v=`.
        case missingVersion
        /// `v=` is not `0`.
        case unsupportedVersion
        /// No `o=` line follows `v=`.
        case missingOrigin
        /// No `s=` line follows `o=`.
        case missingSessionName
        /// No `t=` line.
        case missingTiming
        /// A media section with a non-zero port has no `c=` and neither has the session.
        case missingConnection
        /// `o=` is not `<username> <sess-id> <sess-version> <nettype> <addrtype> <address>`.
        case invalidOrigin
        /// `c=` is not `<nettype> <addrtype> <address>`.
        case invalidConnection
        /// `t=` is not two decimal times.
        case invalidTiming
        /// `b=` is not `<bwtype>:<bandwidth>`.
        case invalidBandwidth
        /// `m=` is not `<media> <port>[/<count>] <proto> <fmt> ...`.
        case invalidMedia
        /// The `m=` port is not a number in 0...65535.
        case invalidPort
        /// An attribute known to this parser (`rtpmap`, `fmtp`, `ptime`, `maxptime`, `rtcp`,
        /// direction, `rtcp-mux`) has an invalid value.
        case invalidAttribute
    }

    /// The class of problem.
    package let kind: Kind
    /// The 1-based line number, or 0 for the body as a whole.
    package let line: Int
    /// The offending text or a short explanation.
    package let detail: String

    /// Creates an error; `detail` is truncated to 80 characters.
    package init(_ kind: Kind, line: Int, detail: String = "") {
        self.kind = kind
        self.line = line
        self.detail = detail.count > 80 ? String(detail.prefix(80)) + "…" : detail
    }

    /// A human-readable explanation, e.g. `SDP line 3: invalid m= port ("m=audio x RTP/AVP 0")`.
    package var description: String {
        let place = line > 0 ? "SDP line \(line)" : "SDP"
        let what: String =
            switch kind {
            case .bodyTooLarge: "body too large"
            case .lineTooLong: "line too long"
            case .tooManyItems: "too many lines, media, attributes or formats"
            case .empty: "empty body"
            case .malformedLine: "malformed line"
            case .unknownLineType: "unknown line type"
            case .misplacedLine: "line out of order or repeated"
            case .missingVersion: "missing v= line"
            case .unsupportedVersion: "unsupported version"
            case .missingOrigin: "missing o= line"
            case .missingSessionName: "missing s= line"
            case .missingTiming: "missing t= line"
            case .missingConnection: "missing c= line"
            case .invalidOrigin: "invalid o= line"
            case .invalidConnection: "invalid c= line"
            case .invalidTiming: "invalid t= line"
            case .invalidBandwidth: "invalid b= line"
            case .invalidMedia: "invalid m= line"
            case .invalidPort: "invalid m= port"
            case .invalidAttribute: "invalid attribute"
            }
        return detail.isEmpty ? "\(place): \(what)" : "\(place): \(what) (\"\(detail)\")"
    }
}
