/// An RAck value (RFC 3262 §7.2): which reliable provisional response a PRACK acknowledges, by
/// its RSeq and the CSeq of the request it answered.
package struct SIPRAck: Sendable, Hashable, CustomStringConvertible {
    /// The RSeq of the provisional response acknowledged.
    package var responseNumber: UInt32
    /// The CSeq number of the request the provisional response answered.
    package var sequence: UInt32
    /// That request's method (INVITE).
    package var method: SIPMethod

    package init(responseNumber: UInt32, sequence: UInt32, method: SIPMethod) {
        self.responseNumber = responseNumber
        self.sequence = sequence
        self.method = method
    }

    /// Parses `response-num LWS CSeq-num LWS Method`: `776656 1 INVITE`. Both numbers are 1 to
    /// 2**31 − 1 (RSeq §7.1) or below 2**31 (CSeq, RFC 3261 §8.1.1.5).
    package init(parsing text: String) throws(SIPParseError) {
        var reader = SIPTextReader(SIPGrammar.trim(text))
        let response = try Self.number(&reader, what: "RAck response-num", minimum: 1)
        guard reader.skipWhitespace() else { throw SIPParseError(.invalidHeaderValue, "RAck: no CSeq number") }
        let sequence = try Self.number(&reader, what: "RAck CSeq-num", minimum: 0)
        guard reader.skipWhitespace(), let method = SIPMethod(String(decoding: reader.readRest(), as: UTF8.self)) else {
            throw SIPParseError(.invalidHeaderValue, "RAck: bad method")
        }
        self.init(responseNumber: response, sequence: sequence, method: method)
    }

    /// Parses an RSeq value: `1*DIGIT`, 1 to 2**31 − 1.
    package static func responseNumber(parsing text: String) throws(SIPParseError) -> UInt32 {
        var reader = SIPTextReader(SIPGrammar.trim(text))
        let number = try number(&reader, what: "RSeq", minimum: 1)
        guard reader.isAtEnd else { throw SIPParseError(.invalidHeaderValue, "RSeq: junk after the number") }
        return number
    }

    private static func number(_ reader: inout SIPTextReader, what: String, minimum: Int) throws(SIPParseError) -> UInt32 {
        guard let value = SIPGrammar.decimal(reader.read(while: SIPGrammar.isDigit), max: Int(Int32.max)), value >= minimum else {
            throw SIPParseError(.invalidHeaderValue, "\(what) missing or out of range")
        }
        return UInt32(value)
    }

    package var description: String { "\(responseNumber) \(sequence) \(method)" }
}

extension SIPHeaders {
    /// RSeq; nil when absent.
    package func rseq() throws(SIPParseError) -> UInt32? {
        try single("rseq").map { v throws(SIPParseError) in try SIPRAck.responseNumber(parsing: v) }
    }

    /// RAck; nil when absent.
    package func rack() throws(SIPParseError) -> SIPRAck? {
        try single("rack").map { v throws(SIPParseError) in try SIPRAck(parsing: v) }
    }
}
