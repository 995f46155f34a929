import VoiceAddress
import VoiceSTUN
import VoiceSupport

/// One ICE candidate (RFC 8445 §5.1): a transport address at which an agent can receive media,
/// its type, priority and foundation, and its base (the address it sends from).
package struct ICECandidate: Hashable, Sendable {
    /// The candidate types and their recommended type preferences (RFC 8445 §5.1.2.2).
    package enum Kind: String, Hashable, Sendable, CaseIterable {
        case host
        case serverReflexive = "srflx"
        case peerReflexive = "prflx"
        case relayed = "relay"

        /// 126 for host, 110 for peer-reflexive, 100 for server-reflexive, 0 for relayed.
        package var typePreference: UInt32 {
            switch self {
            case .host: 126
            case .peerReflexive: 110
            case .serverReflexive: 100
            case .relayed: 0
            }
        }
    }

    package var kind: Kind
    /// 1 for RTP (with rtcp-mux, the only one), 2 for RTCP.
    package var component: Int
    package var address: TransportAddress
    /// The address the agent sends from to use this candidate: the host candidate a
    /// server-reflexive one was learned through, the address itself for host and relayed ones.
    package var base: TransportAddress
    package var priority: UInt32
    package var foundation: String
    /// For a reflexive or relayed candidate, the address it was derived from (SDP's raddr/rport).
    package var relatedAddress: TransportAddress?

    package init(
        kind: Kind, component: Int, address: TransportAddress, base: TransportAddress, priority: UInt32, foundation: String,
        relatedAddress: TransportAddress? = nil
    ) {
        self.kind = kind
        self.component = component
        self.address = address
        self.base = base
        self.priority = priority
        self.foundation = foundation
        self.relatedAddress = relatedAddress
    }

    /// A local candidate with its priority and foundation computed as RFC 8445 recommends.
    /// - Parameters:
    ///   - localPreference: 0–65535, the preference among the host's addresses (65535 for the
    ///     only one; higher for the addresses calls should prefer).
    ///   - server: the STUN or TURN server it was learned from (nil for host candidates): part
    ///     of the foundation.
    package static func local(
        _ kind: Kind, component: Int = 1, address: TransportAddress, base: TransportAddress, localPreference: UInt16 = 65_535,
        server: TransportAddress? = nil
    ) -> ICECandidate {
        ICECandidate(
            kind: kind, component: component, address: address, base: base,
            priority: priority(kind: kind, localPreference: localPreference, component: component),
            foundation: foundation(kind: kind, base: base.ip, server: server?.ip),
            relatedAddress: kind == .host ? nil : base)
    }

    /// Local preferences for a host's addresses (RFC 8421 §4): IPv6 and IPv4 interleaved, IPv6
    /// first, each family in the order given, 256 apart from 65535 down, so each address has
    /// its own. At most 255 addresses get one.
    package static func localPreferences(interleaving addresses: [IPAddress]) -> [IPAddress: UInt16] {
        var preferences: [IPAddress: UInt16] = [:]
        for (rank, ip) in addresses.alternating(firstWhere: \.isIPv6).prefix(255).enumerated() {
            preferences[ip] = UInt16(65_535 - 256 * rank)
        }
        return preferences
    }

    /// RFC 8445 §5.1.2.1: 2^24 × type preference + 2^8 × local preference + (256 − component).
    package static func priority(kind: Kind, localPreference: UInt16, component: Int) -> UInt32 {
        (kind.typePreference << 24) | (UInt32(localPreference) << 8) | UInt32(256 - max(1, min(256, component)))
    }

    /// RFC 8445 §5.1.1.3: candidates of the same type, base IP address, server and transport
    /// share a foundation. Written as 8 hex digits of a CRC-32 over those (ice-chars, so it can
    /// go into SDP as is).
    package static func foundation(kind: Kind, base: IPAddress, server: IPAddress?) -> String {
        let input = Array(kind.rawValue.utf8) + [0] + base.bytes + [0] + (server?.bytes ?? []) + Array("udp".utf8)
        let crc = CRC32.checksum(input)
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: (0..<8).map { hex[Int((crc >> (28 - 4 * UInt32($0))) & 0xF)] }, as: UTF8.self)
    }
}
