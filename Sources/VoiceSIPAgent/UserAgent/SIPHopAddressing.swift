import VoiceAddress
import VoiceSIP

/// How a dual-stack host names itself in what it sends: in the family of the hop each message
/// goes over. Messages are built with one advertised address (IPv4 where it reaches the server,
/// else IPv6); one that goes to an IPv6 address names the host's IPv6 address instead, and the
/// other way round, so that a server reached over one family gets a Contact, a Via sent-by and
/// an SDP `c=` it can reach back over the same family (a server with only AAAA records, say).
///
/// Only our own advertised address is replaced, wherever it stands: the top Via's sent-by (a
/// request's), the Contact URIs' host, and the SDP body's `o=`, `c=` and `a=rtcp` addresses. A
/// NAT's address learned by STUN, a TURN relay's, or another address is left as it is, as is
/// everything when the host has no address in the hop's family. Pure.
package struct SIPHopAddressing: Sendable, Equatable {
    /// The address messages are built with.
    package var advertised: IPAddress
    /// The host's preferred IPv4 address, if it has one.
    package var ipv4: IPAddress?
    /// The host's preferred IPv6 address, if it has one.
    package var ipv6: IPAddress?

    package init(advertised: IPAddress, ipv4: IPAddress?, ipv6: IPAddress?) {
        self.advertised = advertised
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }

    /// The address to name ourselves by toward `peer`, when it is not the advertised one.
    package func replacement(toward peer: IPAddress) -> IPAddress? {
        guard peer.isIPv6 != advertised.isIPv6 else { return nil }
        return peer.isIPv6 ? ipv6 : ipv4
    }

    /// `message` as it goes to `peer`: our advertised address replaced by the host's address in
    /// `peer`'s family where the two differ. Header fields or a body that do not parse stay as
    /// they are (the message was built by us; nothing is lost by sending it unchanged).
    package func fitted(_ message: SIPMessage, toward peer: IPAddress) -> SIPMessage {
        guard let address = replacement(toward: peer) else { return message }
        switch message {
        case .request(var request):
            if var via = try? request.headers.topVia(), same(via.host) {
                via.host = address.description
                request.headers.replaceFirst("via", with: via.description)
            }
            fit(&request.headers, body: &request.body, to: address)
            return .request(request)
        case .response(var response):
            fit(&response.headers, body: &response.body, to: address)
            return .response(response)
        }
    }

    private func fit(_ headers: inout SIPHeaders, body: inout [UInt8], to address: IPAddress) {
        if case .addresses(var contacts)? = try? headers.contact(), contacts.contains(where: { same($0.uri.host) }) {
            for index in contacts.indices where same(contacts[index].uri.host) {
                contacts[index].uri.host = address.description
            }
            headers.set("Contact", contacts.map(\.description).joined(separator: ", "))
        }
        guard !body.isEmpty, let type = try? headers.contentType(), type.type == "application", type.subtype == "sdp",
            var sdp = try? SDPSessionDescription(parsing: body)
        else { return }
        let before = sdp
        if same(sdp.origin.address) {
            sdp.origin.address = address.description
            sdp.origin.addressType = address.isIPv6 ? "IP6" : "IP4"
        }
        fit(&sdp.connection, to: address)
        for index in sdp.media.indices {
            fit(&sdp.media[index].connection, to: address)
            for attribute in sdp.media[index].attributes.indices where sdp.media[index].attributes[attribute].name == "rtcp" {
                guard let value = sdp.media[index].attributes[attribute].value,
                    var rtcp = SDPRTCPAttribute(parsing: Substring(value)), rtcp.connection != nil
                else { continue }
                fit(&rtcp.connection, to: address)
                sdp.media[index].attributes[attribute].value = rtcp.value
            }
        }
        if sdp != before { body = Array(sdp.text.utf8) }
    }

    private func fit(_ connection: inout SDPConnection?, to address: IPAddress) {
        guard let current = connection, same(current.address) else { return }
        connection = SDPConnection(addressType: address.isIPv6 ? "IP6" : "IP4", address: address.description, suffix: current.suffix)
    }

    /// Whether `host` (a URI's, a Via's or an SDP's, IPv6 with or without brackets) is the
    /// advertised address.
    private func same(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return IPAddress(bare) == advertised
    }
}
