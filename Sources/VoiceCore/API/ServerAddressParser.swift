import VoiceSIP

/// Reads the server settings of ``VoiceClientConfiguration`` (``SIPServerAddress``,
/// ``STUNServerAddress``) as SIP URIs, so that host names, IP addresses and ports follow
/// RFC 3261's grammar in both, and every refusal is a 31100 ``VoiceError`` that names the
/// setting and what is wrong with it.
enum ServerAddressParser {
    /// Parses `host`, `host:port`, `[v6]`, `[v6]:port`, a bare IPv6 address, or a `sip:`/`sips:`
    /// URI (with parameters), and refuses what a server's address cannot hold: an empty text,
    /// control characters or spaces (a CR LF read from a file would otherwise reach a header), a
    /// URL, a user part, URI headers, and a port outside 1–65535.
    /// - Parameters:
    ///   - what: The setting's name, for the error.
    ///   - forms: What the setting takes, for the error ("host, host:port or a sip:/sips: URI").
    ///   - allowsSIPURI: Whether `sip:`/`sips:` URIs are accepted (not for a STUN server).
    static func uri(_ text: String, what: String, forms: String, allowsSIPURI: Bool) throws(VoiceError) -> SIPURI {
        guard !text.isEmpty else { throw invalid(what, nil, "is empty") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            // Not echoed: the reason may end up in a log line.
            throw invalid(what, nil, "contains control characters")
        }
        if text.unicodeScalars.contains(" ") { throw invalid(what, text, "contains a space") }
        let lower = text.lowercased()
        let isSIPURI = lower.hasPrefix("sip:") || lower.hasPrefix("sips:")
        if text.contains("://") || (isSIPURI && !allowsSIPURI) || otherSchemes.contains(where: { lower.hasPrefix($0 + ":") }) {
            throw invalid(what, text, "is not \(forms)")
        }
        let uriText: String
        if isSIPURI {
            uriText = text
        } else if !text.hasPrefix("["), text.filter({ $0 == ":" }).count >= 2, !text.contains(";") {
            // An IPv6 address without brackets, which cannot carry a port.
            uriText = "sip:[" + text + "]"
        } else {
            uriText = "sip:" + text
        }
        let uri: SIPURI
        do {
            uri = try SIPURI(parsing: uriText)
        } catch {
            let port = error.detail.contains("port")
            throw invalid(what, text, port ? "has a bad port (1–65535)" : "is not \(forms) (\(error.detail))")
        }
        guard uri.user == nil, uri.password == nil else { throw invalid(what, text, "has a user part") }
        guard uri.headers.isEmpty else { throw invalid(what, text, "has URI headers") }
        guard !uri.host.isEmpty else { throw invalid(what, text, "has no host") }
        if let port = uri.port, !(1...65_535).contains(port) { throw invalid(what, text, "has a bad port (1–65535)") }
        return uri
    }

    /// URI schemes other than SIP's that a server setting is sometimes written with: refused by
    /// name rather than read as `host:port` with a bad port.
    static let otherSchemes = ["tel", "stun", "stuns", "turn", "turns", "http", "https", "ws", "wss", "urn", "mailto"]

    /// 31100 with a reason such as `SIP server address "sip:x:0" has a bad port (1–65535)`; the
    /// text is shown up to 200 characters, and not at all when `text` is nil.
    static func invalid(_ what: String, _ text: String?, _ problem: String) -> VoiceError {
        let shown = text.map { " \"\($0.count > 200 ? $0.prefix(200) + "…" : Substring($0))\"" } ?? ""
        return VoiceError(.malformedRequest, failureReason: "\(what)\(shown) \(problem)")
    }
}
