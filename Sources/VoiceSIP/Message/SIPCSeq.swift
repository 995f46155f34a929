/// A CSeq value: sequence number and method (RFC 3261 §20.16).
package struct SIPCSeq: Sendable, Equatable, CustomStringConvertible {
    /// The sequence number, below 2**31.
    package var sequence: UInt32
    /// The method.
    package var method: SIPMethod

    /// Creates a CSeq.
    package init(sequence: UInt32, method: SIPMethod) {
        self.sequence = sequence
        self.method = method
    }

    /// Parses `1*DIGIT LWS Method`; the number must be below 2**31.
    package init(parsing text: String) throws(SIPParseError) {
        var reader = SIPTextReader(SIPGrammar.trim(text))
        guard let n = SIPGrammar.decimal(reader.read(while: SIPGrammar.isDigit), max: Int(Int32.max)) else {
            throw SIPParseError(.invalidHeaderValue, "CSeq number missing or not below 2**31")
        }
        guard reader.skipWhitespace(),
            let m = SIPMethod(String(decoding: reader.readRest(), as: UTF8.self))
        else {
            throw SIPParseError(.invalidHeaderValue, "bad CSeq method")
        }
        self.init(sequence: UInt32(n), method: m)
    }

    package var description: String { "\(sequence) \(method)" }
}
