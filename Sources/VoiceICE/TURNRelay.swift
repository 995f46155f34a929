import VoiceAddress
import VoiceSupport

/// A TURN server a client allocates relayed candidates on: its address (resolved), how it is
/// reached, and the long-term credential (RFC 8656 §9.2, a WebRTC `RTCIceServer`'s username
/// and credential).
package struct TURNServer: Hashable, Sendable, CustomStringConvertible {
    /// How the client reaches the server; the relay itself is UDP either way (RFC 8656 §3.1).
    package enum Transport: Hashable, Sendable {
        case udp
        case tcp
        /// TLS over TCP (`turns:`): the server's certificate must be valid for `serverName`.
        case tls(serverName: String)
    }

    package var address: TransportAddress
    package var transport: Transport
    package var username: String
    package var password: String
    /// A PEM file of certificates trusted for TLS besides the system's (tests' own CA).
    package var trustedCertificatesFile: String?

    package init(address: TransportAddress, transport: Transport = .udp, username: String, password: String) {
        self.address = address
        self.transport = transport
        self.username = username
        self.password = password
    }

    package var description: String {
        switch transport {
        case .udp: "turn:\(address)"
        case .tcp: "turn:\(address)?transport=tcp"
        case .tls(let name): "turns:\(name) (\(address))"
        }
    }
}

/// An allocation made for a call's media port before its SDP was written: the server, the
/// client value that keeps it (refreshes, permissions, channels), and the addresses it gave.
/// The call's media stream takes it over and drives it on the media thread.
package struct TURNRelay: Sendable {
    package var server: TransportAddress
    package var client: TURNClient
    /// The relayed transport address: a relayed ICE candidate, and its own base.
    package var relayed: TransportAddress
    /// Where the server saw our packets come from (a server-reflexive address).
    package var mapped: TransportAddress
    /// The TCP or TLS connection to the server the allocation lives on (RFC 8656 §3.1); nil
    /// when it is reached over UDP, from the call's media socket.
    package var connection: ReservedConnection?
    /// How the server is reached (W3C's `relayProtocol` of the relayed candidate).
    package var transport: TURNServer.Transport

    package init(
        server: TransportAddress, client: TURNClient, relayed: TransportAddress, mapped: TransportAddress,
        connection: ReservedConnection? = nil, transport: TURNServer.Transport = .udp
    ) {
        self.server = server
        self.client = client
        self.relayed = relayed
        self.mapped = mapped
        self.connection = connection
        self.transport = transport
    }

    /// The relayed candidate (RFC 8445 §5.1.1.2): its base is itself, its related address the
    /// mapped one.
    package var candidate: ICECandidate { Self.candidate(relayed: relayed, mapped: mapped, server: server) }

    /// The relayed addresses: ``relayed``, then a dual allocation's IPv6 one (RFC 8656 §7.2).
    package var relayedAddresses: [TransportAddress] { [relayed] + (client.additionalRelayedAddress.map { [$0] } ?? []) }

    /// A relayed candidate per relayed address (one per family of a dual allocation), with
    /// RFC 8421's preferences (IPv6 first).
    package var candidates: [ICECandidate] { Self.candidates(relayed: relayedAddresses, mapped: mapped, server: server) }

    /// The relayed candidates of an allocation on `server` that gave `relayed` (one address per
    /// family) and `mapped`, with RFC 8421's preferences (IPv6 first).
    package static func candidates(relayed: [TransportAddress], mapped: TransportAddress, server: TransportAddress) -> [ICECandidate] {
        let preferences = ICECandidate.localPreferences(interleaving: relayed.map(\.ip))
        return relayed.map { candidate(relayed: $0, mapped: mapped, server: server, localPreference: preferences[$0.ip] ?? 65_535) }
    }

    /// The relayed candidate of an allocation on `server` that gave `relayed` and `mapped`.
    package static func candidate(
        relayed: TransportAddress, mapped: TransportAddress, server: TransportAddress, localPreference: UInt16 = 65_535
    ) -> ICECandidate {
        var candidate = ICECandidate.local(.relayed, address: relayed, base: relayed, localPreference: localPreference, server: server)
        candidate.relatedAddress = mapped
        return candidate
    }
}

/// Which candidates a client gathers and uses, as WebRTC's `iceTransportPolicy`.
package enum ICECandidatePolicy: Hashable, Sendable {
    /// Host, server-reflexive and relayed candidates.
    case all
    /// Only relayed ones: media always goes through the TURN server, and the host's own
    /// addresses are never revealed to the peer.
    case relay
}
