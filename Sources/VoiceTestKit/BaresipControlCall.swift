/// One line of baresip's `listcalls` output: `> [line 1]  0:00:03  ESTABLISHED   sip:bob@127.0.0.1:5062`.
package struct BaresipControlCall: Hashable, Sendable {
    /// True for the current call (marked `>`), the one `hangup`, `hold` and `sndcode` act on.
    package var isCurrent: Bool
    /// The line number (`line <n>` selects it).
    package var line: Int
    /// baresip's call state: `INCOMING`, `OUTGOING`, `RINGING`, `EARLY`, `ESTABLISHED`, `TERMINATED`.
    package var state: String
    /// The remote URI.
    package var peerURI: String

    /// Creates a call line.
    package init(isCurrent: Bool, line: Int, state: String, peerURI: String) {
        self.isCurrent = isCurrent
        self.line = line
        self.state = state
        self.peerURI = peerURI
    }

    /// The most lines read from one `listcalls` answer.
    package static let maximumCalls = 64

    /// Reads the call lines of a `listcalls` answer; other lines (the header, blank lines) are skipped,
    /// and so are lines that do not have the shape above.
    package static func parseList(_ text: String) -> [BaresipControlCall] {
        var calls: [BaresipControlCall] = []
        for line in text.split(separator: "\n").prefix(maximumCalls + 8) where calls.count < maximumCalls {
            if let call = parseLine(Substring(line)) { calls.append(call) }
        }
        return calls
    }

    /// Reads one call line, nil if it is not one.
    static func parseLine(_ text: Substring) -> BaresipControlCall? {
        guard text.utf8.count <= 1024 else { return nil }
        var words = text.split(separator: " ", omittingEmptySubsequences: true)[...]
        var current = false
        if words.first == ">" {
            current = true
            words = words.dropFirst()
        }
        // [line N]  H:MM:SS  STATE  URI
        guard words.count >= 5, words.first == "[line" else { return nil }
        words = words.dropFirst()
        guard let numberWord = words.popFirst(), numberWord.last == "]", let number = Int(numberWord.dropLast()) else { return nil }
        guard let duration = words.popFirst(), duration.contains(":") else { return nil }
        guard let state = words.popFirst(), !state.isEmpty, state.allSatisfy({ $0.isUppercase || $0 == "_" }) else { return nil }
        guard let peer = words.popFirst() else { return nil }
        return BaresipControlCall(isCurrent: current, line: number, state: String(state), peerURI: String(peer))
    }
}
