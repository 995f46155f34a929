import VoiceSupport

extension SIPInviteSession {
    /// A 488 or 415 to our initial INVITE whose offer was DTLS-SRTP under the automatic policy:
    /// the peer does only SDES (a desk phone, baresip at its defaults), so the INVITE goes once
    /// more with an SDES offer, a new CSeq, the same Call-ID and tag. Nil when that does not
    /// apply (another policy, or the retry was already made).
    mutating func retryWithSDESOffer(after response: SIPResponse) -> [SIPInviteSessionAction]? {
        // 304/305 warnings say the media, not the key exchange, was refused: SDES cannot help.
        let mediaRefused = ((try? response.headers.values("warning")) ?? []).contains { $0.hasPrefix("304 ") || $0.hasPrefix("305 ") }
        guard response.statusCode == 488 || response.statusCode == 415, role == .uac, !cancelWanted, !cancelSent, !mediaRefused,
            offerAnswer.fallBackToSDES()
        else { return nil }
        let offer: SDPSessionDescription
        do throws(SDPNegotiationError) {
            offer = try offerAnswer.makeOffer(direction: wantedDirection)
        } catch {
            return terminate(.mediaNegotiationFailed(error))
        }
        let retry = makeInitialInvite(sequence: nextSequence, body: Array(offer.text.utf8), authorization: [])
        nextSequence += 1
        // The refused INVITE's early dialog, if any, ended with its final response.
        dialog = nil
        provisionalReceived = false
        invite = retry
        state = .calling
        return [send(retry, as: .invite)]
    }
}

extension SIPInviteSession {
    /// Why the INVITE's SDP offer cannot be answered, tried on a copy of the negotiation (nothing
    /// changes): an agent refuses such a call with 488 at once, as baresip and desk phones do,
    /// rather than alerting the user for a call that could never connect, and a caller offering
    /// DTLS-SRTP to an SDES-only callee gets its answer (and retries with SDES) without delay.
    /// Nil when the offer can be answered, or the INVITE has none (we offer in our 200).
    package func offerRefusal() -> SDPNegotiationError? {
        guard role == .uas, let invite = incomingInvite, case .success(let offer)? = Self.sdpBody(invite.headers, invite.body) else {
            return nil
        }
        var trial = offerAnswer
        do throws(SDPNegotiationError) {
            _ = try trial.receiveOffer(offer, direction: wantedDirection)
            return nil
        } catch {
            return error
        }
    }
}

extension SDPNegotiationError {
    /// The Warning header (RFC 3261 §20.43) a refusal of the offer carries: 304 "Media type not
    /// available" without an audio stream, 305 "Incompatible media format" without a common
    /// codec, 399 otherwise (the key exchange). A caller retries a 488 with SDES only when the
    /// warning is not 304 or 305: another key exchange cannot help those.
    package var warningHeader: String {
        let text = description.replacingOccurrences(of: "\"", with: "'")
        switch self {
        case .noAudioStream: return "304 - \"\(text)\""
        case .noCommonCodec: return "305 - \"\(text)\""
        default: return "399 - \"\(text)\""
        }
    }
}
