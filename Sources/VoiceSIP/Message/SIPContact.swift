/// The value of a Contact header: `*` or a list of addresses (RFC 3261 §20.10).
package enum SIPContact: Sendable, Equatable {
    /// `Contact: *`, allowed only in a REGISTER that removes all bindings.
    case wildcard
    /// One or more addresses.
    case addresses([SIPNameAddress])
}

extension SIPNameAddress {
    /// The Contact `expires` parameter in seconds; nil when absent or malformed (callers then use their default).
    package var expires: UInt32? {
        parameters.value("expires").flatMap { SIPGrammar.decimal(ArraySlice($0.utf8), max: Int(UInt32.max)) }.map(UInt32.init)
    }

    /// The Contact `q` parameter (0 to 1, up to three decimals), in thousandths; nil when absent or malformed.
    package var qValueThousandths: Int? {
        guard let q = parameters.value("q") else { return nil }
        let parts = q.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int(parts[0]), parts[0].count == 1, whole <= 1 else { return nil }
        var frac = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            frac = Int(digits + String(repeating: "0", count: 3 - digits.count)) ?? 0
        }
        let value = whole * 1000 + frac
        return value <= 1000 ? value : nil
    }
}
