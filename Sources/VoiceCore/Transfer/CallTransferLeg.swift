import VoiceSIP

/// What a call placed for a transfer we accepted carries: its target, the Referred-By and
/// Replaces header fields of the REFER, and the call whose transferor hears how it goes.
struct CallTransferLeg: Sendable {
    let destination: String
    let headers: [(String, String)]
    let referrer: CallCore

    init(_ referral: SIPReferRequest, referrer: CallCore) {
        destination = referral.target.description
        var headers: [(String, String)] = []
        if let by = referral.referredBy { headers.append(("Referred-By", by.description)) }
        if let replaces = referral.replaces { headers.append(("Replaces", replaces.description)) }
        self.headers = headers
        self.referrer = referrer
    }
}
