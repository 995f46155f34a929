import Foundation
import VoiceSIP
import VoiceSupport

/// The far end asks us to call someone else (a SIP REFER: a blind or, with ``isAttended``, an
/// attended transfer). Delivered to ``CallDelegate/call(_:didReceiveTransferRequest:)``, whose
/// default refuses it. Answer once: ``accept(options:delegate:)`` places the new call and keeps
/// the far end informed of how it goes; ``reject()`` refuses (603). A request nobody answers
/// within 10 s is refused.
public final class CallTransferRequest: Sendable, Equatable, CustomStringConvertible {
    /// How long a request waits for an answer before it is refused.
    package static let answerTimeout: TimeInterval = 10

    /// The SIP URI to call (`sip:carol@example.com`).
    public let target: String
    /// Who asked for the transfer (Referred-By), when the far end said.
    public let referredBy: String?
    /// Whether the new call replaces a call the target has with the transferor (an attended
    /// transfer): the target takes it without ringing.
    public let isAttended: Bool

    let core: CallCore
    let referral: SIPReferRequest
    private let answered = Locked(false)

    init(core: CallCore, referral: SIPReferRequest) {
        self.core = core
        self.referral = referral
        self.target = referral.target.description
        self.referredBy = referral.referredBy?.uri.description
        self.isAttended = referral.replaces != nil
    }

    /// Accepts: the far end hears 202 Accepted, and a new call to ``target`` starts (carrying
    /// Referred-By, and Replaces for an attended transfer), reported through `delegate`. The
    /// far end learns whether it rings, connects or fails. This call stays as it is: the
    /// transferor usually hangs it up once the new call connects.
    /// - Returns: The new call; nil when the request was already answered or its call ended.
    @discardableResult
    public func accept(options: ConnectOptions = ConnectOptions(), delegate: CallDelegate) -> Call? {
        guard claim() else { return nil }
        return core.acceptTransfer(referral, options: options, delegate: delegate)
    }

    /// Refuses: the far end hears 603 Decline; this call goes on.
    public func reject() {
        guard claim() else { return }
        let core = self.core
        core.client.onLoop { core.answerTransfer(accepted: false) }
    }

    /// Marks the request answered; false when it already was.
    func claim() -> Bool {
        answered.withLock { done in
            defer { done = true }
            return !done
        }
    }

    public static func == (lhs: CallTransferRequest, rhs: CallTransferRequest) -> Bool { lhs === rhs }

    public var description: String { "CallTransferRequest(\(target)\(isAttended ? ", attended" : ""))" }
}
