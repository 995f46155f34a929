/// A Session-Expires value (RFC 4028 §4): the session interval in seconds and who refreshes it;
/// also the delta-seconds of a Min-SE (§5).
package struct SIPSessionExpires: Sendable, Hashable, CustomStringConvertible {
    /// Who sends the refreshes: the UAC or the UAS of the transaction that carried the value.
    package enum Refresher: String, Sendable, Hashable {
        case uac, uas
    }

    /// The largest interval read (a day; RFC 4028 sets no upper bound, a peer may send any).
    package static let maximumSeconds = 86_400

    /// The session interval.
    package var seconds: Int
    /// Who refreshes; nil when the value did not say.
    package var refresher: Refresher?

    package init(seconds: Int, refresher: Refresher? = nil) {
        self.seconds = seconds
        self.refresher = refresher
    }

    /// Parses `delta-seconds *(;se-params)`: `1800;refresher=uac`. Other parameters are skipped;
    /// a refresher other than `uac` or `uas` is malformed.
    package init(parsing text: String) throws(SIPParseError) {
        var reader = SIPTextReader(SIPGrammar.trim(text))
        seconds = try Self.deltaSeconds(&reader, what: "Session-Expires")
        let parameters = try SIPParameters.parseHeaderParameters(&reader)
        guard reader.isAtEnd else { throw SIPParseError(.invalidHeaderValue, "Session-Expires: junk after the parameters") }
        refresher = nil
        if let value = parameters.value("refresher") {
            guard let known = Refresher(rawValue: value.lowercased()) else {
                throw SIPParseError(.invalidHeaderValue, "Session-Expires refresher \(value)")
            }
            refresher = known
        }
    }

    /// Parses a Min-SE value: `delta-seconds *(;generic-param)`.
    package static func minimumSE(parsing text: String) throws(SIPParseError) -> Int {
        var reader = SIPTextReader(SIPGrammar.trim(text))
        let seconds = try deltaSeconds(&reader, what: "Min-SE")
        _ = try SIPParameters.parseHeaderParameters(&reader)
        guard reader.isAtEnd else { throw SIPParseError(.invalidHeaderValue, "Min-SE: junk after the parameters") }
        return seconds
    }

    private static func deltaSeconds(_ reader: inout SIPTextReader, what: String) throws(SIPParseError) -> Int {
        guard let seconds = SIPGrammar.decimal(reader.read(while: SIPGrammar.isDigit), max: maximumSeconds), seconds > 0 else {
            throw SIPParseError(.invalidHeaderValue, "\(what): delta-seconds missing, zero or over \(maximumSeconds)")
        }
        return seconds
    }

    package var description: String { refresher.map { "\(seconds);refresher=\($0.rawValue)" } ?? "\(seconds)" }
}

extension SIPHeaders {
    /// Session-Expires (or its compact `x`); nil when absent.
    package func sessionExpires() throws(SIPParseError) -> SIPSessionExpires? {
        try single("session-expires").map { v throws(SIPParseError) in try SIPSessionExpires(parsing: v) }
    }

    /// Min-SE in seconds; nil when absent.
    package func minimumSE() throws(SIPParseError) -> Int? {
        try single("min-se").map { v throws(SIPParseError) in try SIPSessionExpires.minimumSE(parsing: v) }
    }

    /// Whether an option tag (`timer`, `100rel`) is listed in Supported or Require.
    package func lists(optionTag tag: String, in name: String) -> Bool {
        ((try? values(name)) ?? []).contains { $0.lowercased() == tag }
    }
}
