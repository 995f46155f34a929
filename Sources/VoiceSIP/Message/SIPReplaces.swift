/// A Replaces value (RFC 3891 §6.1): the dialog a new INVITE takes over, by its Call-ID and
/// tags as the recipient sees them (`to-tag` its own, `from-tag` the peer's), and whether only
/// an early dialog may be replaced. It travels as a header field, or inside a Refer-To URI as
/// `?Replaces=` (escaped).
package struct SIPReplaces: Sendable, Hashable, CustomStringConvertible {
    /// The replaced dialog's Call-ID.
    package var callID: String
    /// The recipient's own tag in that dialog.
    package var toTag: String
    /// The recipient's peer's tag in that dialog.
    package var fromTag: String
    /// Replace the dialog only while it is early.
    package var earlyOnly: Bool

    package init(callID: String, toTag: String, fromTag: String, earlyOnly: Bool = false) {
        self.callID = callID
        self.toTag = toTag
        self.fromTag = fromTag
        self.earlyOnly = earlyOnly
    }

    /// Parses `callid *(SEMI replaces-param)`; both tags are required, other parameters skipped.
    package init(parsing text: String) throws(SIPParseError) {
        var reader = SIPTextReader(SIPGrammar.trim(text))
        let callID = reader.read(while: { SIPGrammar.isWordChar($0) || $0 == 0x40 })
        let parts = callID.split(separator: 0x40, omittingEmptySubsequences: false)
        guard !callID.isEmpty, callID.count <= 256, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }) else {
            throw SIPParseError(.invalidHeaderValue, "Replaces: bad Call-ID")
        }
        reader.skipWhitespace()
        let parameters = try SIPParameters.parseHeaderParameters(&reader)
        guard reader.isAtEnd else { throw SIPParseError(.invalidHeaderValue, "Replaces: junk after the parameters") }
        guard let toTag = parameters.value("to-tag"), let fromTag = parameters.value("from-tag"), !toTag.isEmpty, !fromTag.isEmpty,
            toTag.utf8.allSatisfy(SIPGrammar.isToken), fromTag.utf8.allSatisfy(SIPGrammar.isToken)
        else { throw SIPParseError(.invalidHeaderValue, "Replaces: to-tag and from-tag are required tokens") }
        self.init(callID: String(decoding: callID, as: UTF8.self), toTag: toTag, fromTag: fromTag, earlyOnly: parameters.contains("early-only"))
    }

    package var description: String {
        "\(callID);to-tag=\(toTag);from-tag=\(fromTag)" + (earlyOnly ? ";early-only" : "")
    }
}

extension SIPHeaders {
    /// Replaces; nil when absent.
    package func replaces() throws(SIPParseError) -> SIPReplaces? {
        try single("replaces").map { v throws(SIPParseError) in try SIPReplaces(parsing: v) }
    }

    /// Refer-To (or its compact `r`) as a name-address; nil when absent.
    package func referTo() throws(SIPParseError) -> SIPNameAddress? {
        try single("refer-to").map { v throws(SIPParseError) in try SIPNameAddress(parsing: v) }
    }

    /// Referred-By (or its compact `b`) as a name-address; nil when absent.
    package func referredBy() throws(SIPParseError) -> SIPNameAddress? {
        try single("referred-by").map { v throws(SIPParseError) in try SIPNameAddress(parsing: v) }
    }
}
