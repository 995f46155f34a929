import VoiceSIP

/// SHAKEN/STIR information about the caller of a ``CallInvite`` (Twilio's `TVOCallerInfo`).
public struct CallerInfo: Sendable, Equatable {
    /// Whether the caller's number was verified: true when the network's verification
    /// status is `TN-Validation-Passed`, false when it is `TN-Validation-Failed`, nil when no
    /// status was given (or `No-TN-Validation`).
    public let isVerified: Bool?

    /// Creates caller information.
    package init(isVerified: Bool?) {
        self.isVerified = isVerified
    }

    /// The `verstat` parameter name (3GPP TS 24.229 §7.2A.20), a parameter of the
    /// P-Asserted-Identity or From URI.
    package static let verstatParameter = "verstat"

    /// Reads `verstat` from the first P-Asserted-Identity that has one, then from From: as a
    /// URI parameter or, leniently, a header parameter. Headers that do not parse are skipped.
    package init(headers: SIPHeaders) {
        var candidates: [String] = []
        if let asserted = try? headers.values("p-asserted-identity") { candidates += asserted }
        candidates += headers["from"]
        let verstat = candidates.lazy.compactMap { text -> String? in
            guard let address = try? SIPNameAddress(parsing: text) else { return nil }
            return address.uri.parameters.value(Self.verstatParameter)
                ?? address.parameters.value(Self.verstatParameter)
        }.first
        self.init(verstat: verstat ?? "")
    }

    /// Interprets a `verstat` value (compared without case).
    package init(verstat: String) {
        switch verstat.lowercased() {
        case "tn-validation-passed": self.init(isVerified: true)
        case "tn-validation-failed": self.init(isVerified: false)
        default: self.init(isVerified: nil)
        }
    }
}
