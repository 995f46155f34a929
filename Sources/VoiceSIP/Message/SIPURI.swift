/// A SIP, SIPS or tel URI (RFC 3261 §19.1, RFC 3966), or an opaque absolute URI of another scheme.
///
/// Components hold decoded text: `%HH` escapes are resolved on parsing and reapplied by
/// ``description``. IPv6 hosts are stored without brackets (RFC 5118). Structural equality is
/// `==`; the RFC 3261 §19.1.4 comparison is ``isEquivalent(to:)``.
public struct SIPURI: Sendable, Equatable, CustomStringConvertible {
    /// The URI scheme.
    public enum Scheme: Sendable, Hashable {
        /// `sip:`
        case sip
        /// `sips:`
        case sips
        /// `tel:` (RFC 3966); the number is in ``SIPURI/user``.
        case tel
        /// Any other scheme, lowercased; the rest of the URI is in ``SIPURI/opaque``.
        case other(String)

        /// The scheme name as written in a URI.
        public var name: String {
            switch self {
            case .sip: "sip"
            case .sips: "sips"
            case .tel: "tel"
            case .other(let s): s
            }
        }
    }

    /// One `?name=value` URI header.
    public struct Header: Sendable, Equatable {
        /// The header name.
        public var name: String
        /// The header value.
        public var value: String
        /// Creates a URI header.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Size limit on a URI's text, in bytes.
    public static let maximumLength = 4096

    /// The scheme.
    public var scheme: Scheme
    /// The user part (for tel URIs, the telephone number).
    public var user: String?
    /// The password part (deprecated but parsed).
    public var password: String?
    /// The host: a name, an IPv4 address, or an IPv6 address without brackets. Empty for tel and opaque URIs.
    public var host: String
    /// The port, if given.
    public var port: Int?
    /// The URI parameters.
    public var parameters: SIPParameters
    /// The URI headers (after `?`).
    public var headers: [Header]
    /// For schemes other than sip, sips and tel, everything after `scheme:`.
    public var opaque: String?

    /// Creates a SIP or SIPS URI.
    public init(
        scheme: Scheme = .sip, user: String? = nil, password: String? = nil, host: String,
        port: Int? = nil, parameters: SIPParameters = SIPParameters(), headers: [Header] = []
    ) {
        self.scheme = scheme
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.parameters = parameters
        self.headers = headers
        self.opaque = nil
    }

    /// Parses a URI from its text.
    public init(parsing text: String) throws(SIPParseError) {
        self = try SIPURI.parse(ArraySlice(text.utf8))
    }

    /// True when the host is an IPv6 address.
    public var isIPv6: Bool { host.contains(":") }

    /// The `transport` parameter, lowercased.
    public var transport: String? { parameters.value("transport")?.lowercased() }
    /// True when the URI carries the `lr` parameter (loose routing, RFC 3261 §16.12.1).
    public var isLooseRouting: Bool { parameters.contains("lr") }

    public var description: String {
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
