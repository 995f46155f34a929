import VoiceMediaTypes
import VoiceSupport

/// One media section: the `m=` line and the `i=`, `c=`, `b=`, `k=` and `a=` lines under it.
package struct SDPMediaDescription: Hashable, Sendable {
    /// Media type: `audio`, `video`, `application`, …
    package var media: String
    /// Transport port; 0 marks a rejected or disabled stream (RFC 3264 §5.1).
    package var port: UInt16
    /// The `/<count>` after the port, if any.
    package var portCount: Int?
    /// Transport protocol, e.g. `RTP/AVP`, `RTP/SAVP`.
    package var proto: String
    /// Media formats: RTP payload types for the RTP profiles, in preference order.
    package var formats: [String]
    /// The `i=` line.
    package var information: String?
    /// The media-level `c=` line, overriding the session's.
    package var connection: SDPConnection?
    /// The `b=` lines.
    package var bandwidths: [SDPBandwidth]
    /// The `k=` line (obsolete), verbatim.
    package var encryptionKey: String?
    /// The `a=` lines, in order.
    package var attributes: [SDPAttribute]

    /// Creates a media section.
    package init(
        media: String, port: UInt16, portCount: Int? = nil, proto: String, formats: [String],
        information: String? = nil, connection: SDPConnection? = nil, bandwidths: [SDPBandwidth] = [],
        encryptionKey: String? = nil, attributes: [SDPAttribute] = []
    ) {
        self.media = media
        self.port = port
        self.portCount = portCount
        self.proto = proto
        self.formats = formats
        self.information = information
        self.connection = connection
        self.bandwidths = bandwidths
        self.encryptionKey = encryptionKey
        self.attributes = attributes
    }

    /// The `m=` line value.
    package var mediaLineValue: String {
        ([media, String(port) + (portCount.map { "/\($0)" } ?? ""), proto] + formats).joined(separator: " ")
    }

    /// Values of every attribute named `name` (flags give an empty string).
    package func attributeValues(_ name: String) -> [String] {
        attributes.filter { $0.name == name }.map { $0.value ?? "" }
    }

    /// Whether a flag attribute (or any attribute) named `name` is present.
    package func hasAttribute(_ name: String) -> Bool { attributes.contains { $0.name == name } }

    /// The `a=rtpmap` lines that parse.
    package var rtpMaps: [SDPRTPMap] { attributeValues("rtpmap").compactMap { SDPRTPMap(parsing: Substring($0)) } }

    /// The rtpmap for payload type `pt`: its `a=rtpmap`, else the RFC 3551 static mapping.
    package func rtpMap(for payloadType: UInt8) -> SDPRTPMap? {
        rtpMaps.first { $0.payloadType == payloadType } ?? SDPRTPMap.staticMap(for: payloadType)
    }

    /// The `a=fmtp` parameters for `format`, if any.
    package func formatParameters(for format: String) -> SDPFormatParameters? {
        attributeValues("fmtp").compactMap { SDPFormatParameters(parsing: Substring($0)) }.first { $0.format == format }
    }

    /// `a=ptime` in milliseconds.
    package var ptime: Int? { attributeValues("ptime").first.flatMap { SDPMediaDescription.milliseconds($0) } }
    /// `a=maxptime` in milliseconds.
    package var maxptime: Int? { attributeValues("maxptime").first.flatMap { SDPMediaDescription.milliseconds($0) } }

    /// The media-level direction attribute, if any.
    package var directionAttribute: SDPDirection? {
        attributes.lazy.compactMap { $0.value == nil ? SDPDirection(rawValue: $0.name) : nil }.first
    }

    /// `a=rtcp`, if present and valid.
    package var rtcp: SDPRTCPAttribute? { attributeValues("rtcp").first.flatMap { SDPRTCPAttribute(parsing: Substring($0)) } }

    /// Whether `a=rtcp-mux` is present.
    package var rtcpMux: Bool { hasAttribute("rtcp-mux") }

    /// RFC 6464's client-to-mixer audio level header extension.
    package static let audioLevelExtensionURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"

    /// The ID this section maps RFC 6464's audio level to (`a=extmap:<id>[/<direction>]
    /// urn:ietf:params:rtp-hdrext:ssrc-audio-level`, RFC 8285), if any: 1–14 (one-byte
    /// elements) or up to 255 (two-byte).
    package var audioLevelExtensionID: UInt8? {
        for value in attributeValues("extmap") {
            let fields = value.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].lowercased() == Self.audioLevelExtensionURI,
                let idText = fields[0].split(separator: "/").first, let id = UInt8(idText), id >= 1
            else { continue }
            return id
        }
        return nil
    }

    /// The XR block kind RFC 3611 §5.1 names `voip-metrics`.
    package static let voipMetricsXRFormat = "voip-metrics"

    /// Whether an `a=rtcp-xr` line (RFC 3611 §5.1) lists the XR format `format`, such as
    /// `voip-metrics` (its values are formats separated by spaces, some with parameters).
    package func listsXRFormat(_ format: String) -> Bool {
        attributeValues("rtcp-xr").contains { value in
            value.split(separator: " ").contains { $0.split(separator: "=").first?.lowercased() == format }
        }
    }

    /// `a=mid` (RFC 5888): the section's identification, which BUNDLE groups name.
    package var mid: String? { attributeValues("mid").first }

    /// The `a=crypto` lines that parse with a suite VoiceMedia implements, in order. Others are
    /// skipped, as RFC 4568 §7.1.2 lets the answerer ignore what it cannot use.
    package var cryptoAttributes: [SDESCryptoAttribute] {
        attributeValues("crypto").compactMap { try? SDESCryptoAttribute(parsing: $0) }
    }

    /// Whether the transport is an SRTP profile keyed by SDES (`RTP/SAVP`, `RTP/SAVPF`); DTLS-SRTP
    /// profiles are ``isDTLSSRTP``.
    package var isSecureRTP: Bool { proto.uppercased().hasPrefix("RTP/SAVP") }

    /// Whether the transport is an RTP profile: `RTP/…`, or RTP over DTLS (`UDP/TLS/RTP/…`, RFC 5764).
    package var isRTP: Bool {
        let proto = proto.uppercased()
        return proto.hasPrefix("RTP/") || proto.hasPrefix("UDP/TLS/RTP/")
    }

    /// Parses a ptime value: an integer, or a decimal that is rounded (some phones write `20.0`).
    static func milliseconds(_ text: String) -> Int? {
        let integral = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = integral.first, let value = SDPTextReader.decimal(first, maxDigits: 5), value > 0 else { return nil }
        if integral.count == 2 {
            guard !integral[1].isEmpty, SDPTextReader.decimal(integral[1], maxDigits: 6) != nil else { return nil }
        }
        return Int(value)
    }
}
