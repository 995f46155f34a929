/// A SIP, SIPS or tel URI (RFC 3261 §19.1, RFC 3966), or an opaque absolute URI of another scheme.
///
/// Components hold decoded text: `%HH` escapes are resolved on parsing and reapplied by
/// ``description``. IPv6 hosts are stored without brackets (RFC 5118). Structural equality is
/// `==`; the RFC 3261 §19.1.4 comparison is ``isEquivalent(to:)``.
package struct SIPURI: Sendable, Equatable, CustomStringConvertible {
    /// The URI scheme.
    package enum Scheme: Sendable, Hashable {
        /// `sip:`
        case sip
        /// `sips:`
        case sips
        /// `tel:` (RFC 3966); the number is in ``SIPURI/user``.
        case tel
        /// Any other scheme, lowercased; the rest of the URI is in ``SIPURI/opaque``.
        case other(String)

        /// The scheme name as written in a URI.
        package var name: String {
            switch self {
            case .sip: "sip"
            case .sips: "sips"
            case .tel: "tel"
            case .other(let s): s
            }
        }
    }

    /// One `?name=value` URI header.
    package struct Header: Sendable, Equatable {
        /// The header name.
        package var name: String
        /// The header value.
        package var value: String
        /// Creates a URI header.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Size limit on a URI's text, in bytes.
    package static let maximumLength = 4096

    /// The scheme.
    package var scheme: Scheme
    /// The user part (for tel URIs, the telephone number).
    package var user: String?
    /// The password part (deprecated but parsed).
    package var password: String?
    /// The host: a name, an IPv4 address, or an IPv6 address without brackets. Empty for tel and opaque URIs.
    package var host: String
    /// The port, if given.
    package var port: Int?
    /// The URI parameters.
    package var parameters: SIPParameters
    /// The URI headers (after `?`).
    package var headers: [Header]
    /// For schemes other than sip, sips and tel, everything after `scheme:`.
    package var opaque: String?

    /// Creates a SIP or SIPS URI. An IPv6 host may come bare or as a URI writes it
    /// (`[2001:db8::1]`): it is kept bare, and bracketed once when written.
    package init(
        scheme: Scheme = .sip, user: String? = nil, password: String? = nil, host: String,
        port: Int? = nil, parameters: SIPParameters = SIPParameters(), headers: [Header] = []
    ) {
        self.scheme = scheme
        self.user = user
        self.password = password
        self.host = host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.parameters = parameters
        self.headers = headers
        self.opaque = nil
    }

    /// Parses a URI from its text.
    package init(parsing text: String) throws(SIPParseError) {
        self = try SIPURI.parse(ArraySlice(text.utf8))
    }

    /// True when the host is an IPv6 address.
    package var isIPv6: Bool { host.contains(":") }

    /// The `transport` parameter, lowercased.
    package var transport: String? { parameters.value("transport")?.lowercased() }
    /// True when the URI carries the `lr` parameter (loose routing, RFC 3261 §16.12.1).
    package var isLooseRouting: Bool { parameters.contains("lr") }

    package var description: String {
        switch scheme {
        case .other(let name):
            return "\(name):\(opaque ?? "")"
        case .tel:
            return "tel:\(SIPGrammar.escape(user ?? "", allowed: { SIPGrammar.isParamChar($0) || $0 == 0x2D }))"
                + uriParameterString
        case .sip, .sips:
            var s = "\(scheme.name):"
            if let user {
                s += SIPGrammar.escape(user, allowed: SIPGrammar.isUserChar)
                if let password { s += ":" + SIPGrammar.escape(password, allowed: SIPGrammar.isPasswordChar) }
                s += "@"
            }
            s += isIPv6 ? "[\(host)]" : host
            if let port { s += ":\(port)" }
            s += uriParameterString
            if !headers.isEmpty {
                s +=
                    "?"
                    + headers.map {
                        SIPGrammar.escape($0.name, allowed: SIPGrammar.isHeaderChar) + "="
                            + SIPGrammar.escape($0.value, allowed: SIPGrammar.isHeaderChar)
                    }.joined(separator: "&")
            }
            return s
        }
    }

    var uriParameterString: String {
        parameters.map { p in
            let name = SIPGrammar.escape(p.name, allowed: SIPGrammar.isParamChar)
            return p.value.map { ";\(name)=\(SIPGrammar.escape($0, allowed: SIPGrammar.isParamChar))" } ?? ";\(name)"
        }.joined()
    }
}
