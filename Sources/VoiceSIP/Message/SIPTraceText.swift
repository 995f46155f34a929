import VoiceSupport
/// A SIP message as text that is safe to write to a log or a terminal: SDES master keys (SDP
/// `a=crypto` `inline:` key parameters) and credentials (`Authorization`,
/// `Proxy-Authorization`) are redacted, and every control character other than the line breaks
/// is escaped as `\u{…}`, so a peer can neither forge log lines nor drive a terminal.
package enum SIPTraceText {
    /// The text of `bytes` (one serialized message), one log line per message line.
    package static func render(_ message: some Sequence<UInt8>) -> String {
        let bytes = Array(message)
        var lines: [String] = []
        var inCredential = false
        var start = bytes.startIndex
        for i in bytes.indices where bytes[i] == 0x0A {
            lines.append(renderLine(bytes[start..<i], inCredential: &inCredential))
            start = i + 1
        }
        if start < bytes.endIndex { lines.append(renderLine(bytes[start...], inCredential: &inCredential)) }
        return lines.joined(separator: "\n")
    }

    private static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization"]

    /// `inCredential` carries whether the previous line was a credential header, whose folded
    /// continuation lines (RFC 3261 §7.3.1) are redacted too.
    private static func renderLine(_ raw: ArraySlice<UInt8>, inCredential: inout Bool) -> String {
        var line = Array(raw)
        if line.last == 0x0D { line.removeLast() }
        if let first = line.first, first == 0x20 || first == 0x09 {
            if inCredential { return "  <redacted>" }
        } else {
            inCredential = false
        }
        if let colon = line.firstIndex(of: 0x3A) {
            let name = String(decoding: line[..<colon].filter { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self).lowercased()
            if credentialHeaders.contains(name) {
                inCredential = true
                let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
                let scheme = value.prefix { $0 != 0x20 && $0 != 0x09 }
                return escaped(String(decoding: line[...colon], as: UTF8.self) + " " + String(decoding: scheme, as: UTF8.self) + " <redacted>")
            }
        }
        if lowercased(line.prefix(9)) == Array("a=crypto:".utf8) { line = redactingInlineKeys(line) }
        return escaped(String(decoding: line, as: UTF8.self))
    }

    /// Replaces the key of every `inline:` key parameter (up to `|`, `;` or a space) with `<redacted>`.
    private static func redactingInlineKeys(_ line: [UInt8]) -> [UInt8] {
        let marker = Array("inline:".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < line.count {
            if i + marker.count <= line.count, lowercased(line[i..<(i + marker.count)]) == marker {
                out += line[i..<(i + marker.count)] + Array("<redacted>".utf8)
                i += marker.count
                while i < line.count, line[i] != 0x7C, line[i] != 0x3B, line[i] != 0x20 { i += 1 }
            } else {
                out.append(line[i])
                i += 1
            }
        }
        return out
    }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    private static func escaped(_ text: String) -> String { text.escapingControlCharacters }
}
