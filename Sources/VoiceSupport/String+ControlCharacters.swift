extension String {
    /// This text with every control character (C0, DEL, C1) except tab shown as `\u{…}`, for
    /// writing text that came from a peer to a log or a terminal: a peer cannot start a new log
    /// line, move the cursor or colour the screen with it.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar.properties.generalCategory == .control, scalar != "\t" {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
