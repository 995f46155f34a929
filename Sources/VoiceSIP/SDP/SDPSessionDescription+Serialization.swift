extension SDPSessionDescription {
    /// The description as SDP text, lines in RFC 8866 order, each ending in CRLF.
    package var text: String {
        var lines: [String] = []
        lines.append("v=\(version)")
        lines.append("o=\(origin.value)")
        lines.append("s=\(sessionName)")
        if let information { lines.append("i=\(information)") }
        if let uri { lines.append("u=\(uri)") }
        lines += emails.map { "e=\($0)" }
        lines += phones.map { "p=\($0)" }
        if let connection { lines.append("c=\(connection.value)") }
        lines += bandwidths.map { "b=\($0.value)" }
        for timing in timings {
            lines.append("t=\(timing.start) \(timing.stop)")
            lines += timing.repeats.map { "r=\($0)" }
        }
        if let timeZones { lines.append("z=\(timeZones)") }
        if let encryptionKey { lines.append("k=\(encryptionKey)") }
        lines += attributes.map { "a=\($0.text)" }
        for section in media {
            lines.append("m=\(section.mediaLineValue)")
            if let information = section.information { lines.append("i=\(information)") }
            if let connection = section.connection { lines.append("c=\(connection.value)") }
            lines += section.bandwidths.map { "b=\($0.value)" }
            if let key = section.encryptionKey { lines.append("k=\(key)") }
            lines += section.attributes.map { "a=\($0.text)" }
        }
        return lines.map { $0 + "\r\n" }.joined()
    }
}
