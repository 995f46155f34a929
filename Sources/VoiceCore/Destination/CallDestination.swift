import VoiceSIPAgent
import VoiceSIP

/// Where an outgoing call goes: the `To` parameter of ``ConnectOptions``, parsed into one of
/// the four call types (Sinch's App-to-App, App-to-Phone, App-to-SIP and Conference).
///
/// | `To` | destination | Request-URI (domain `example.com`) |
/// |---|---|---|
/// | `bob`, `client:bob` | ``user(_:)`` | `sip:bob@example.com` |
/// | `+14155550101`, `tel:+14155550101` | ``phoneNumber(_:)`` | `sip:+14155550101@example.com;user=phone` |
/// | `alice@sip.example.com`, `sip:…`, `sips:…` | ``sipAddress(_:)`` | the address itself |
/// | `conference:room` | ``conference(_:)`` | `sip:room@example.com;conference` |
///
/// Parsing happens before any traffic. Every problem is a ``VoiceError`` with code 31100
/// ``VoiceError/Code/malformedRequest`` (the request could not be formed) and a failure
/// reason saying what is wrong.
package enum CallDestination: Sendable, Equatable, CustomStringConvertible {
    /// A user of the same service (App-to-App): 1–121 characters of ALPHA, DIGIT and `-_.~!*'()`.
    case user(String)
    /// A phone number in E.164 form: `+`, then 7–15 digits, the first not 0.
    case phoneNumber(String)
    /// A SIP or SIPS address with a user and a host and no URI headers (App-to-SIP), as a
    /// normalized URI (`sip:alice@example.com;transport=tls`).
    case sipAddress(String)
    /// A conference room: 1–64 characters of ALPHA, DIGIT and `-_.~`.
    case conference(String)

    /// Size limit on the `To` text, in bytes.
    package static let maximumLength = 512
    /// The longest user identity.
    package static let maximumUserLength = 121
    /// The longest conference id (Sinch: "may not be longer than 64 characters").
    package static let maximumConferenceIDLength = 64
    /// The longest E.164 number, in digits.
    package static let maximumPhoneDigits = 15
    /// The shortest E.164 number, in digits: a three-digit country code and a four-digit
    /// subscriber number (Niue, Tokelau) is the shortest any numbering plan assigns.
    package static let minimumPhoneDigits = 7
    /// The URI parameter that marks a conference Request-URI.
    package static let conferenceParameter = "conference"

    /// Parses a `To` parameter.
    package init(parsing text: String) throws(VoiceError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw Self.invalid("The destination is \(text.utf8.count) bytes; the limit is \(Self.maximumLength)")
        }
        guard !text.isEmpty else { throw Self.invalid("The destination is empty") }
        let lower = text.lowercased()
        if lower.hasPrefix("client:") {
            self = .user(try Self.checkedUser(text.dropFirst("client:".count)))
        } else if lower.hasPrefix("conference:") {
            self = .conference(try Self.checkedConferenceID(text.dropFirst("conference:".count)))
        } else if lower.hasPrefix("tel:") {
            self = .phoneNumber(try Self.checkedPhoneNumber(text.dropFirst("tel:".count)))
        } else if text.hasPrefix("+") {
            self = .phoneNumber(try Self.checkedPhoneNumber(text[...]))
        } else if lower.hasPrefix("sip:") || lower.hasPrefix("sips:") {
            self = .sipAddress(try Self.checkedSIPAddress(text).description)
        } else if text.contains("@") {
            self = .sipAddress(try Self.checkedSIPAddress("sip:" + text).description)
        } else {
            self = .user(try Self.checkedUser(text[...]))
        }
    }

    /// The Request-URI (and To URI) of the INVITE for a service at `domain`, and the headers it
    /// adds, with conferences addressed as `conference` says.
    package func request(domain: String, conference: ConferenceAddressing) -> (uri: SIPURI, headers: [(String, String)]) {
        guard case .conference(let id) = self else { return (requestURI(domain: domain), []) }
        switch conference {
        case .uriParameter: return (requestURI(domain: domain), [])
        case .userPrefix(let prefix): return (SIPURI(user: prefix + id, host: domain), [])
        case .host(let host): return (SIPURI(user: id, host: host), [])
        case .focus(let user, let header): return (SIPURI(user: user, host: domain), [(header, id)])
        }
    }

    /// The Request-URI (and To URI) of the INVITE, for a service at `domain`.
    package func requestURI(domain: String) -> SIPURI {
        switch self {
        case .user(let name):
            return SIPURI(user: name, host: domain)
        case .phoneNumber(let number):
            return SIPURI(user: number, host: domain, parameters: SIPParameters([("user", "phone")]))
        case .sipAddress(let text):
            // Checked when the destination was made; one built by hand that does not parse
            // addresses nobody rather than a user at the service.
            return (try? Self.checkedSIPAddress(text)) ?? SIPURI(user: "invalid", host: "invalid")
        case .conference(let id):
            return SIPURI(user: id, host: domain, parameters: SIPParameters([(Self.conferenceParameter, nil)]))
        }
    }

    /// The destination a received Request-URI names, the reverse of ``requestURI(domain:)``:
    /// a `conference` parameter → ``conference(_:)``; a `tel:` URI or `user=phone` with an
    /// E.164 user → ``phoneNumber(_:)``; a valid user at `domain` → ``user(_:)``; anything
    /// else → ``sipAddress(_:)``.
    package init(requestURI uri: SIPURI, domain: String?) {
        let user = uri.user ?? ""
        if uri.parameters.contains(Self.conferenceParameter), let id = try? Self.checkedConferenceID(user[...]) {
            self = .conference(id)
        } else if uri.scheme == .tel || uri.parameters.value("user")?.lowercased() == "phone",
            let number = try? Self.checkedPhoneNumber(user[...])
        {
            self = .phoneNumber(number)
        } else if let domain, uri.host.lowercased() == domain.lowercased(), let name = try? Self.checkedUser(user[...]) {
            self = .user(name)
        } else {
            self = .sipAddress(uri.description)
        }
    }

    /// The destination as a `To` parameter: `bob`, `+14155550101`, `sip:alice@host`, `conference:room`.
    package var description: String {
        switch self {
        case .user(let name): name
        case .phoneNumber(let number): number
        case .sipAddress(let uri): uri
        case .conference(let id): "conference:\(id)"
        }
    }

    static func invalid(_ reason: String) -> VoiceError {
        VoiceError(.malformedRequest, failureReason: reason)
    }

    private static func checkedUser(_ text: Substring) throws(VoiceError) -> String {
        guard !text.isEmpty else { throw invalid("The user identity is empty") }
        guard text.count <= maximumUserLength else {
            throw invalid("The user identity is \(text.count) characters; the limit is \(maximumUserLength)")
        }
        for (offset, byte) in text.utf8.enumerated() {
            let ok = CallParameterPercentEncoding.isUnreserved(byte) || "!*'()".utf8.contains(byte)
            guard ok else { throw invalid("The user identity has an invalid character at offset \(offset)") }
        }
        return String(text)
    }

    package static func checkedConferenceID(_ text: Substring) throws(VoiceError) -> String {
        guard !text.isEmpty else { throw invalid("The conference id is empty") }
        guard text.count <= maximumConferenceIDLength else {
            throw invalid("The conference id is \(text.count) characters; the limit is \(maximumConferenceIDLength)")
        }
        for (offset, byte) in text.utf8.enumerated() where !CallParameterPercentEncoding.isUnreserved(byte) {
            throw invalid("The conference id has an invalid character at offset \(offset)")
        }
        return String(text)
    }

    private static func checkedPhoneNumber(_ text: Substring) throws(VoiceError) -> String {
        var bytes = text.utf8.makeIterator()
        guard bytes.next() == UInt8(ascii: "+") else { throw invalid("An E.164 number starts with +") }
        var digits = 0
        while let byte = bytes.next() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw invalid("An E.164 number has only digits after +")
            }
            if digits == 0, byte == UInt8(ascii: "0") { throw invalid("An E.164 country code does not start with 0") }
            digits += 1
        }
        guard digits > 0 else { throw invalid("The E.164 number has no digits") }
        guard digits >= minimumPhoneDigits else {
            throw invalid("The E.164 number has \(digits) digits; no number is shorter than \(minimumPhoneDigits)")
        }
        guard digits <= maximumPhoneDigits else {
            throw invalid("The E.164 number has \(digits) digits; the limit is \(maximumPhoneDigits)")
        }
        return String(text)
    }

    private static func checkedSIPAddress(_ text: String) throws(VoiceError) -> SIPURI {
        let uri: SIPURI
        do throws(SIPParseError) {
            uri = try SIPURI(parsing: text)
        } catch {
            throw invalid("The SIP address is not a valid URI: \(error.detail)")
        }
        guard uri.scheme == .sip || uri.scheme == .sips else { throw invalid("A SIP address is sip: or sips:") }
        guard let user = uri.user, !user.isEmpty else { throw invalid("The SIP address has no user part") }
        guard !uri.host.isEmpty else { throw invalid("The SIP address has no host") }
        // Escapes decode to any byte: a user or parameter with a line break or an escape
        // sequence is no address anybody can have, only a way to smuggle text into logs.
        let decoded = [user, uri.host] + uri.parameters.map { $0.name + ($0.value ?? "") }
        guard !decoded.contains(where: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
            throw invalid("The SIP address contains control characters")
        }
        guard uri.headers.isEmpty else {
            throw invalid("The SIP address carries URI headers; pass custom headers as X- parameters instead")
        }
        return uri
    }
}
