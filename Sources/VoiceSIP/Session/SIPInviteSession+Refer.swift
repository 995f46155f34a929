import VoiceSupport

// Call transfer (RFC 3515 REFER with its implicit subscription, RFC 3891 Replaces inside
// Refer-To, RFC 3892 Referred-By), both as the transferor and as the transferee. The INVITE
// with Replaces that the target receives is matched by the agent, which owns every dialog.
extension SIPInviteSession {
    /// How long the transferee's implicit subscription lasts (Subscription-State expires) and
    /// how long the transferor waits for its final NOTIFY.
    static let referSubscriptionSeconds = 60
    /// The Event value of a REFER's implicit subscription.
    private static let referEvent = "refer"
    private static let sipfragType = "message/sipfrag;version=2.0"

    // MARK: The transferor

    /// Asks the peer to call `target` (REFER with `Refer-To`, and `Referred-By` us). With
    /// `replaces` the new call takes over that dialog at the target (an attended transfer: the
    /// Refer-To URI carries `?Replaces=`). Progress comes as ``SIPInviteSessionEvent/referProgress(_:)``.
    /// - Throws: ``SIPInviteSessionError/notConfirmed``, ``SIPInviteSessionError/transferInProgress``.
    package mutating func sendRefer(to target: SIPURI, replaces: SIPReplaces? = nil, now: MediaTime) throws(SIPInviteSessionError)
        -> [SIPInviteSessionAction]
    {
        guard state == .confirmed else { throw .notConfirmed }
        guard referPhase == .idle else { throw .transferInProgress }
        var uri = target
        uri.headers = replaces.map { [SIPURI.Header(name: "Replaces", value: $0.description)] } ?? []
        var extra = SIPHeaders()
        extra.add("Refer-To", SIPNameAddress(uri: uri).description)
        extra.add("Referred-By", SIPNameAddress(uri: configuration.localIdentity.uri).description)
        guard let refer = makeDialogRequest(.refer, extraHeaders: extra), let sequence = try? refer.headers.cseq().sequence else {
            throw .notConfirmed
        }
        referPhase = .referring(sequence: sequence)
        return [send(refer, as: .refer), startTimer(.referSubscription, after: .seconds(Double(Self.referSubscriptionSeconds * 2)))]
    }

    /// The answer to our REFER.
    mutating func referResponse(_ response: SIPResponse, to request: SIPRequest) -> [SIPInviteSessionAction] {
        let code = response.statusCode
        guard code >= 200 else { return [] }
        if let retry = authenticate(response, request: request, purpose: .refer) {
            if let sequence = retry.compactMap({ if case .sendRequest(let r) = $0 { try? r.headers.cseq().sequence } else { nil } }).first {
                referPhase = .referring(sequence: sequence)
            }
            return retry
        }
        guard case .referring(let sequence) = referPhase else { return [] }
        if (200..<300).contains(code) {
            referPhase = .subscribed(sequence: sequence)
            return [.event(.referProgress(.accepted))]
        }
        return endRefer(.refused(statusCode: code))
    }

    /// Our REFER got no answer (408) or could not be sent (503).
    mutating func referFailed(_ failure: SIPFailure) -> [SIPInviteSessionAction] {
        guard case .referring = referPhase else { return [] }
        return endRefer(.refused(statusCode: failure == .transactionTimeout ? 408 : 503))
    }

    private mutating func endRefer(_ progress: SIPReferProgress) -> [SIPInviteSessionAction] {
        referPhase = .idle
        var actions: [SIPInviteSessionAction] = []
        if runningTimers.contains(.referSubscription) { actions.append(cancelTimer(.referSubscription)) }
        return actions + [.event(.referProgress(progress))]
    }

    /// No final NOTIFY in time: the transfer's outcome is unknown, reported as 408.
    mutating func referSubscriptionExpired() -> [SIPInviteSessionAction] {
        switch referPhase {
        case .referring, .subscribed: return endRefer(.notified(statusCode: 408, final: true))
        case .idle, .asking, .reporting: return []
        }
    }

    /// A NOTIFY in the dialog: the transferee's report (RFC 3515 §2.4.4), answered 200; 489 for
    /// another event package, 481 without a REFER of ours, 400/415 for a body that is no sipfrag.
    mutating func receiveNotify(_ request: SIPRequest) -> [SIPInviteSessionAction] {
        guard let event = request.headers.first("event"),
            let package = try? SIPHeaders.splitList(event).first?.split(separator: ";").first,
            SIPGrammar.trim(String(package)).lowercased() == Self.referEvent
        else { return [.sendResponse(makeResponse(to: request, statusCode: 489))] }
        let sequence: UInt32
        switch referPhase {
        case .referring(let s), .subscribed(let s): sequence = s
        case .idle, .asking, .reporting: return [.sendResponse(makeResponse(to: request, statusCode: 481))]
        }
        if let id = Self.eventID(event), id != sequence { return [.sendResponse(makeResponse(to: request, statusCode: 481))] }
        let type = (try? request.headers.contentType()).flatMap { $0 }
        guard let type, "\(type.type)/\(type.subtype)".lowercased() == "message/sipfrag" else {
            var response = makeResponse(to: request, statusCode: 415)
            response.headers.add("Accept", "message/sipfrag")
            return [.sendResponse(response)]
        }
        let status: SIPFragmentStatus
        do throws(SIPParseError) {
            status = try SIPFragmentStatus(parsing: request.body)
        } catch {
            return [.sendResponse(makeResponse(to: request, statusCode: 400))]
        }
        let terminated = request.headers.first("subscription-state").map { $0.lowercased().hasPrefix("terminated") } ?? false
        let final = terminated || status.statusCode >= 200
        let ok = SIPInviteSessionAction.sendResponse(makeResponse(to: request, statusCode: 200))
        if final { return [ok] + endRefer(.notified(statusCode: status.statusCode, final: true)) }
        referPhase = .subscribed(sequence: sequence)
        return [ok, .event(.referProgress(.notified(statusCode: status.statusCode, final: false)))]
    }

    /// The `id` parameter of an Event value, if any.
    private static func eventID(_ event: String) -> UInt32? {
        for parameter in event.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            if pair.count == 2, SIPGrammar.trim(String(pair[0])).lowercased() == "id" { return UInt32(SIPGrammar.trim(String(pair[1]))) }
        }
        return nil
    }

    // MARK: The transferee

    /// A REFER from the peer: checked, then put to the app (``SIPInviteSessionEvent/referReceived(_:)``)
    /// until ``answerRefer(accept:statusCode:now:)``. 400 without one Refer-To that parses (or with a bad
    /// Referred-By or embedded Replaces), 416 for a scheme we cannot call (a `sips:` target over
    /// a transport that is not TLS), 403 outside a confirmed call, 491 while a transfer is in
    /// progress either way.
    mutating func receiveRefer(_ request: SIPRequest) -> [SIPInviteSessionAction] {
        guard state == .confirmed else { return [.sendResponse(makeResponse(to: request, statusCode: 403))] }
        guard referPhase == .idle else { return [.sendResponse(makeResponse(to: request, statusCode: 491))] }
        let parsed: SIPReferRequest
        do throws(SIPParseError) {
            guard let referTo = try request.headers.referTo() else {
                return [.sendResponse(makeResponse(to: request, statusCode: 400, reason: "Missing Refer-To"))]
            }
            var target = referTo.uri
            var replaces: SIPReplaces?
            for header in target.headers where header.name.lowercased() == "replaces" {
                guard replaces == nil else { throw SIPParseError(.duplicateHeader, "Replaces in Refer-To") }
                replaces = try SIPReplaces(parsing: header.value)
            }
            target.headers = []
            parsed = SIPReferRequest(target: target, referredBy: try request.headers.referredBy(), replaces: replaces)
        } catch {
            return [.sendResponse(makeResponse(to: request, statusCode: 400, reason: "Bad Refer-To, Referred-By or Replaces"))]
        }
        switch parsed.target.scheme {
        case .sip:
            break
        case .sips where ["TLS", "WSS"].contains(configuration.via.transport.uppercased()):
            break
        default:
            var response = makeResponse(to: request, statusCode: 416)
            response.headers.add("Warning", "399 \(configuration.via.host) \"Refer-To \(parsed.target.scheme) cannot be called over \(configuration.via.transport)\"")
            return [.sendResponse(response)]
        }
        referPhase = .asking(request)
        return [.event(.referReceived(parsed))]
    }

    /// The app's answer to the REFER put to it: accepted, 202 and a first NOTIFY (100 Trying)
    /// opening the subscription; refused, `statusCode` (603 by default).
    package mutating func answerRefer(accept: Bool, statusCode: Int = 603, now: MediaTime) -> [SIPInviteSessionAction] {
        guard case .asking(let refer) = referPhase else { return [] }
        guard accept, !isTerminated, let sequence = try? refer.headers.cseq().sequence else {
            referPhase = .idle
            return [.sendResponse(makeResponse(to: refer, statusCode: (400...699).contains(statusCode) ? statusCode : 603))]
        }
        referPhase = .reporting(sequence: sequence)
        return [.sendResponse(makeResponse(to: refer, statusCode: 202))] + notifyRefer(statusCode: 100, now: now)
    }

    /// Reports the new call's status to the transferor in a NOTIFY (sipfrag); a final status
    /// (200 or above) ends the subscription. Nothing once the call or the subscription is over.
    package mutating func notifyRefer(statusCode: Int, now: MediaTime) -> [SIPInviteSessionAction] {
        guard case .reporting(let sequence) = referPhase, !isTerminated, state != .terminating else { return [] }
        let final = statusCode >= 200
        var extra = SIPHeaders()
        extra.add("Event", "\(Self.referEvent);id=\(sequence)")
        extra.add(
            "Subscription-State", final ? "terminated;reason=noresource" : "active;expires=\(Self.referSubscriptionSeconds)")
        if final { referPhase = .idle }
        let body = SIPFragmentStatus(statusCode: statusCode).body
        guard let notify = makeDialogRequest(.notify, body: body, contentType: Self.sipfragType, extraHeaders: extra) else { return [] }
        return [send(notify, as: .notify)]
    }

    /// The REFER put to the app gets an answer when the call ends before the app decided.
    mutating func abandonRefer() -> [SIPInviteSessionAction] {
        guard case .asking(let refer) = referPhase else { return [] }
        referPhase = .idle
        return [.sendResponse(makeResponse(to: refer, statusCode: 603))]
    }
}

extension SIPInviteSession {
    /// `makeResponse` with another reason phrase.
    func makeResponse(to request: SIPRequest, statusCode: Int, reason: String) -> SIPResponse {
        var response = makeResponse(to: request, statusCode: statusCode)
        response.reasonPhrase = reason
        return response
    }
}
