/// The transport-layer Via rules of a user agent core (RFC 3261 §18.2.1 and §18.2.2, RFC 3581 §4):
/// stamping a received request's top Via with where it really came from, and working out where
/// a response goes. Pure functions.
package enum SIPViaStamping {
    /// Stamps the top Via of a received request (RFC 3261 §18.2.1, RFC 3581 §4).
    ///
    /// Adds `received=<source IP>` when the sent-by host is a name or an address other than the
    /// source; when the Via carries `rport` without a value, fills it with the source port and
    /// adds `received` in any case. Other Via values and header fields are left as they were.
    ///
    /// - Parameters:
    ///   - request: the request as parsed.
    ///   - sourceHost: the packet's source IP address (IPv6 without brackets).
    ///   - sourcePort: the packet's source port.
    /// - Throws: the parse error of a missing or malformed top Via.
    package static func stampReceived(
        _ request: SIPRequest, sourceHost: String, sourcePort: Int
    ) throws(SIPParseError) -> SIPRequest {
        var via = try request.headers.topVia()
        let fillRport = via.hasRport && via.rport == nil
        if fillRport || !isSameAddress(via.host, sourceHost) {
            // `received` (replacing any) goes before `rport`, as in RFC 3581 §6, else last.
            var parameters = SIPParameters()
            for parameter in via.parameters where parameter.name.lowercased() != "received" {
                if parameter.name.lowercased() == "rport", !parameters.contains("received") {
                    parameters.set("received", sourceHost)
                }
                parameters.set(parameter.name, parameter.value)
            }
            if !parameters.contains("received") { parameters.set("received", sourceHost) }
            via.parameters = parameters
        }
        if fillRport { via.parameters.set("rport", String(sourcePort)) }
        var stamped = request
        stamped.headers = try replacingTopVia(in: request.headers, with: via)
        return stamped
    }

    /// Where a response with this top Via goes (RFC 3261 §18.2.2, RFC 3581 §4).
    ///
    /// - Reliable transports (TCP, TLS, SCTP, WS, WSS): the request's connection; if it is
    ///   closed, `received` (else sent-by host) at the sent-by port.
    /// - `maddr`: that address, at the sent-by port, with the Via `ttl`.
    /// - `received`: that address, at `rport` when filled in, else the sent-by port.
    /// - Otherwise the sent-by host and port.
    ///
    /// Missing ports are 5061 for TLS (and TLS over SCTP), 5060 otherwise.
    package static func responseDestination(for via: SIPVia) -> SIPResponseDestination {
        let transport = via.transport.uppercased()
        let defaultPort = transport == "TLS" || transport == "TLS-SCTP" ? 5061 : 5060
        let sentByPort = via.port ?? defaultPort
        if isReliable(transport) {
            return SIPResponseDestination(
                reuseConnection: true, host: via.received ?? via.host, port: sentByPort, transport: transport)
        }
        if let maddr = via.parameters.value("maddr") {
            let ttl = via.parameters.value("ttl").flatMap { SIPGrammar.decimal(ArraySlice($0.utf8), max: 255) }
            return SIPResponseDestination(
                reuseConnection: false, host: maddr, port: sentByPort, transport: transport,
                isMulticast: isMulticast(maddr), ttl: ttl ?? 1)
        }
        if let received = via.received {
            return SIPResponseDestination(
                reuseConnection: false, host: received, port: via.rport ?? sentByPort, transport: transport,
                fromReceivingSocket: via.hasRport)
        }
        return SIPResponseDestination(
            reuseConnection: false, host: via.host, port: sentByPort, transport: transport,
            fromReceivingSocket: via.hasRport)
    }

    /// Where `response` goes, from its top Via.
    package static func responseDestination(for response: SIPResponse) throws(SIPParseError) -> SIPResponseDestination {
        responseDestination(for: try response.headers.topVia())
    }

    /// True for the connection-oriented transports a response goes back on.
    package static func isReliable(_ transport: String) -> Bool {
        ["TCP", "TLS", "SCTP", "TLS-SCTP", "WS", "WSS"].contains(transport.uppercased())
    }

    // MARK: - Private

    /// True when `host` is an IP literal equal to `source` (IPv6 compared by value).
    static func isSameAddress(_ host: String, _ source: String) -> Bool {
        if let a = SIPURI.ipv4Bytes(ArraySlice(host.utf8)) {
            return SIPURI.ipv4Bytes(ArraySlice(source.utf8)) == a
        }
        if host.contains(":"), let a = SIPURI.ipv6Bytes(ArraySlice(host.utf8)) {
            return SIPURI.ipv6Bytes(ArraySlice(source.utf8)) == a
        }
        return false
    }

    private static func isMulticast(_ address: String) -> Bool {
        if let v4 = SIPURI.ipv4Bytes(ArraySlice(address.utf8)) { return (224...239).contains(v4[0]) }
        if let v6 = SIPURI.ipv6Bytes(ArraySlice(address.utf8)) { return v6[0] == 0xFF }
        return false
    }

    /// `headers` with the first element of the first Via field replaced by `via`.
    private static func replacingTopVia(in headers: SIPHeaders, with via: SIPVia) throws(SIPParseError) -> SIPHeaders {
        var out = SIPHeaders()
        var replaced = false
        for field in headers {
            guard !replaced, field.key == "via" else {
                out.add(field.name, field.value)
                continue
            }
            var elements = try SIPHeaders.splitList(field.value)
            elements[0] = via.description
            out.add(field.name, elements.joined(separator: ", "))
            replaced = true
        }
        return out
    }
}
