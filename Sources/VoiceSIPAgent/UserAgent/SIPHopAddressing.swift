import VoiceAddress
import VoiceSIP

/// How a dual-stack host names itself in what it sends: in the family of the hop each message
/// goes over. Messages are built with one advertised address (IPv4 where it reaches the server,
/// else IPv6); one that goes to an IPv6 address names the host's IPv6 address instead, and the
/// other way round, so that a server reached over one family gets a Contact, a Via sent-by and
/// an SDP `c=` it can reach back over the same family (a server with only AAAA records, say).
///
/// Only the host's own addresses (the advertised one and the preferred one of each family) are
/// replaced, wherever they stand: the top Via's sent-by (a request's), the Contact URIs' host,
/// and the SDP body's `c=` and `a=rtcp` addresses. So a request built for one family and sent
/// over the other after a failover is refitted, as is one stored already fitted. A NAT's
/// address learned by STUN, a TURN relay's, or another address is left as it is, as is
/// everything when the host has no address in the hop's family. The SDP's `o=` stays: it
/// names the session, which RFC 3264 §8 keeps the same across offers but for the version.
/// Pure.
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

    /// The address to name ourselves by toward `peer`: the advertised one in its family, else
    /// the host's preferred one of `peer`'s family; nil when the host has none.
    package func replacement(toward peer: IPAddress) -> IPAddress? {
        if peer.isIPv6 == advertised.isIPv6 { return advertised }
        return peer.isIPv6 ? ipv6 : ipv4
    }

    /// `message` as it goes to `peer`: the host's addresses replaced by its address in `peer`'s
    /// family where the two differ. The SDP's follows `mediaPeer` instead where the call's media
    /// peer is known (an answer is in the offer's family, RFC 6157 §4: a proxy reached over
    /// IPv6 may front an IPv4-only gateway). Header fields or a body that do not parse stay as
    /// they are (the message was built by us; nothing is lost by sending it unchanged).
    package func fitted(_ message: SIPMessage, toward peer: IPAddress, mediaPeer: IPAddress? = nil) -> SIPMessage {
        guard let address = replacement(toward: peer) else { return message }
        let mediaAddress = mediaPeer.flatMap(replacement(toward:)) ?? address
        switch message {
        case .request(var request):
            if var via = try? request.headers.topVia(), differs(via.host, from: address) {
                via.host = address.description
                request.headers.replaceFirst("via", with: via.description)
            }
            fit(&request.headers, body: &request.body, to: address, media: mediaAddress)
            return .request(request)
        case .response(var response):
            fit(&response.headers, body: &response.body, to: address, media: mediaAddress)
            return .response(response)
        }
    }

    private func fit(_ headers: inout SIPHeaders, body: inout [UInt8], to address: IPAddress, media: IPAddress) {
        renameContacts(in: &headers, to: address)
        guard !body.isEmpty, let type = try? headers.contentType(), type.type == "application", type.subtype == "sdp",
            var sdp = try? SDPSessionDescription(parsing: body)
        else { return }
        let before = sdp
        fit(&sdp.connection, to: media)
        for index in sdp.media.indices {
            fit(&sdp.media[index].connection, to: media)
            for attribute in sdp.media[index].attributes.indices where sdp.media[index].attributes[attribute].name == "rtcp" {
                guard let value = sdp.media[index].attributes[attribute].value,
                    var rtcp = SDPRTCPAttribute(parsing: Substring(value)), rtcp.connection != nil
                else { continue }
                fit(&rtcp.connection, to: media)
                sdp.media[index].attributes[attribute].value = rtcp.value
            }
        }
        if sdp != before { body = Array(sdp.text.utf8) }
    }

    private func fit(_ connection: inout SDPConnection?, to address: IPAddress) {
        guard let current = connection, differs(current.address, from: address) else { return }
        connection = SDPConnection(addressType: address.isIPv6 ? "IP6" : "IP4", address: address.description, suffix: current.suffix)
    }

    /// Contact URIs that name one of the host's addresses other than `address` name `address`.
    private func renameContacts(in headers: inout SIPHeaders, to address: IPAddress) {
        guard case .addresses(var contacts)? = try? headers.contact(), contacts.contains(where: { differs($0.uri.host, from: address) })
        else { return }
        for index in contacts.indices where differs(contacts[index].uri.host, from: address) {
            contacts[index].uri.host = address.description
        }
        headers.set("Contact", contacts.map(\.description).joined(separator: ", "))
    }

    /// Whether `host` (a URI's, a Via's or an SDP's, IPv6 with or without brackets) is one of
    /// the host's own addresses named here, other than `address`.
    private func differs(_ host: String, from address: IPAddress) -> Bool {
        guard let ip = IPAddress.literal(host), ip != address else { return false }
        return ip == advertised || ip == ipv4 || ip == ipv6
    }

    /// A REGISTER's response as the registration expects it: Contact URIs that name the host's
    /// address of another family (ours, fitted to the hop) name the advertised one again, so
    /// the registration finds its binding and the expiry the registrar granted it.
    package func unfitted(registerResponse response: SIPResponse) -> SIPResponse {
        var response = response
        renameContacts(in: &response.headers, to: advertised)
        return response
    }
}
