import Dispatch
import Foundation
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport

/// An incoming call, mirroring Twilio's `TVOCallInvite`: accept it, reject it, or wait for its
/// cancellation. Delivered to ``NotificationDelegate/callInviteReceived(_:)``.
public final class CallInvite: Sendable, CustomStringConvertible {
    enum Status: Sendable { case pending, accepted, rejected, cancelled }

    /// The caller (user part or number), if known.
    public let from: String?
    /// The callee (our identity).
    public let to: String
    /// The call's SID, shared with the caller (`CA` + 32 hex).
    public let callSid: String
    /// A UUID for the invite; the accepted call inherits it by default.
    public let uuid: UUID
    /// `X-` headers of the INVITE (URI-decoded values), i.e. the caller's `params` other than `To`,
    /// plus the `twi_params` of a notification handed to ``VoiceClient/handleNotification(_:delegate:delegateQueue:callMessageDelegate:)``
    /// (a header wins over a notification parameter of the same name).
    public var customParameters: [String: String] { parameters.withLock { $0 } }
    /// SHAKEN/STIR verification of the caller.
    public let callerInfo: CallerInfo
    let handle: SIPCallHandle
    let client: VoiceClient
    let status = Locked(Status.pending)
    private let parameters: Locked<[String: String]>
    /// The notification delegates this invite was delivered to, in order: each gets it once, and
    /// each hears of its cancellation.
    let recipients = Locked<[CallInviteRecipient]>([])
    /// Where message results go and the send rate limit; used on the client's event loop.
    let messaging: Locked<CallInviteMessaging>
    /// The INVITE's Request-URI and headers, for a server that routes on them (a conference
    /// room's id is in one or the other).
    package let requestURI: SIPURI
    package let requestHeaders: SIPHeaders

    init(
        handle: SIPCallHandle, client: VoiceClient, from: String?, to: String, callSid: String,
        customParameters: [String: String], callerInfo: CallerInfo, messaging: CallInviteMessaging,
        requestURI: SIPURI, requestHeaders: SIPHeaders
    ) {
        self.requestURI = requestURI
        self.requestHeaders = requestHeaders
        self.handle = handle
        self.client = client
        self.messaging = Locked(messaging)
        self.from = from
        self.to = to
        self.callSid = callSid
        self.uuid = UUID()
        self.parameters = Locked(customParameters)
        self.callerInfo = callerInfo
    }

    /// Adds a notification's parameters, keeping the INVITE's where both name one.
    func mergeParameters(_ notified: [String: String]) {
        parameters.withLock { $0.merge(notified) { header, _ in header } }
    }

    /// Accepts with default options; the returned call connects or fails through `delegate`.
    /// `callDidStartRinging` never fires for it.
    public func accept(delegate: CallDelegate) -> Call {
        accept(options: AcceptOptions(callInvite: self), delegate: delegate)
    }

    /// Accepts with `options`.
    public func accept(options: AcceptOptions, delegate: CallDelegate) -> Call {
        let call = Call(uuid: options.uuid, from: from, to: to, sid: callSid, delegateQueue: options.delegateQueue)
        let core = CallCore(
            client: client, call: call, role: .callee, delegate: delegate, delegateQueue: options.delegateQueue,
            messageDelegate: options.callMessageDelegate, preferredCodecs: options.preferredAudioCodecs,
            enableDSCP: options.enableDscp, audioDevice: options.audioDevice, audioProcessing: options.audioProcessing)
        call.core.withLock { $0 = core }
        let previous = status.withLock { status -> Status in
            let previous = status
            if status == .pending { status = .accepted }
            return previous
        }
        let client = self.client
        let handle = self.handle
        let codecs = options.preferredAudioCodecs.map(\.mediaCodec)
        client.onLoop {
            guard previous == .pending, client.invites.removeValue(forKey: handle) != nil else {
                // A CANCEL that arrived between the accept and now marked the invite too.
                let cancelled = previous == .cancelled || self.status.withLock { $0 } == .cancelled
                // Accepted too late: the caller gave up (31008, a canceled call), or the invite
                // was already answered or rejected (31481).
                let error = cancelled
                    ? VoiceError(.callCancelled, failureReason: "The caller cancelled the call before it was accepted", sipStatus: 487)
                    : VoiceError(.callDoesNotExist, failureReason: "the invite was already answered or rejected")
                core.run(core.machine.signalingFailed(core.stateError(error), now: client.now))
                return
            }
            core.handle = handle
            client.calls[handle] = core
            core.publish(CallInsights.connection(.acceptedByLocal, callSid: core.sid))
            core.trackMedia(.created)
            core.signalingState(.haveRemoteOffer)
            client.agent.accept(handle, codecs: codecs)
        }
        return call
    }

    /// Rejects the invite: the caller gets 600 Busy Everywhere (31600).
    public func reject() { reject(statusCode: 600) }

    /// Rejects the invite with a SIP status of the server's choosing (3xx–6xx; anything else is
    /// 603), e.g. 404 for a room that does not exist or 486 for a full one.
    package func reject(statusCode: Int, reasonPhrase: String? = nil) {
        let rejected = status.withLock { status -> Bool in
            guard status == .pending else { return false }
            status = .rejected
            return true
        }
        guard rejected else { return }
        let client = self.client
        let handle = self.handle
        let sid = callSid
        client.onLoop {
            client.invites[handle] = nil
            client.agent.reject(handle, statusCode: statusCode, reasonPhrase: reasonPhrase)
            client.insights.publish(CallInsights.connection(.rejectedByLocal, callSid: sid))
            let error = statusCode == 600
                ? VoiceError(.busyEverywhere, failureReason: "Busy Everywhere : SIP/2.0 600 Call Rejected", sipStatus: 600)
                : VoiceError(sipStatus: statusCode, reasonPhrase: reasonPhrase) ?? VoiceError(.badRequest, sipStatus: statusCode)
            client.insights.publish(CallInsights.error(error, callSid: sid))
        }
    }

    /// Sends a call message to the caller while the invite rings: a SIP INFO in the early dialog
    /// our 180 Ringing set up. The outcome goes to the ``CallMessageDelegate`` given to
    /// ``VoiceClient/handleNotification(_:delegate:delegateQueue:callMessageDelegate:)`` or, failing
    /// that, at registration, on that call's queue: `callInvite(_:didSendMessage:)` or
    /// `callInvite(_:didFailToSendMessage:error:)` (over 10 KB, more than 10 a minute, refused
    /// by the caller, or the invite answered or cancelled before it went out).
    /// - Returns: The message's `voiceEventSid`; "" without sending once the invite was
    ///   accepted, rejected or cancelled.
    public func sendMessage(_ message: CallMessage) -> String {
        guard status.withLock({ $0 }) == .pending else { return "" }
        let client = self.client
        client.onLoop { self.sendMessageOnLoop(message) }
        return message.voiceEventSid
    }

    private func sendMessageOnLoop(_ message: CallMessage) {
        guard status.withLock({ $0 }) == .pending, client.invites[handle] === self else {
            messageFailed(message, VoiceError(.callDoesNotExist, failureReason: "the invite was answered or cancelled"))
            return
        }
        let now = client.now
        message.send(over: client.agent, on: handle, admit: { messaging.withLock { $0.limiter.admit(at: now) } }) { error in
            if let error {
                self.messageFailed(message, error)
            } else {
                self.notifyMessageDelegate { $0.callInvite(self, didSendMessage: message.voiceEventSid) }
            }
        }
    }

    private func messageFailed(_ message: CallMessage, _ error: VoiceError) {
        notifyMessageDelegate { $0.callInvite(self, didFailToSendMessage: message, error: error) }
    }

    /// A message the caller sent on the early dialog (JSON INFO).
    func receiveMessage(_ message: CallMessage) {
        notifyMessageDelegate { $0.callInvite(self, didReceiveMessage: message) }
    }

    /// Calls the invite's message delegate, if any, on its queue.
    private func notifyMessageDelegate(_ body: @escaping @Sendable (CallMessageDelegate) -> Void) {
        let (delegate, queue) = messaging.withLock { ($0.delegate, $0.queue) }
        guard let delegate else { return }
        queue.async {
            guard let value = delegate.value else { return }
            body(value)
        }
    }

    public var description: String { "CallInvite(\(callSid) from \(from ?? "?") to \(to))" }
}

/// A notification delegate an invite was delivered to, and its queue.
struct CallInviteRecipient: Sendable {
    let delegate: DelegateBox<NotificationDelegate>
    let queue: DispatchQueue

    /// Tells the delegate, on its queue, that the caller cancelled (31487).
    func tellCancelled(_ cancelled: CancelledCallInvite) {
        let delegate = self.delegate
        let error = VoiceError(.requestTerminated, failureReason: "the caller cancelled", sipStatus: 487)
        queue.async { delegate.value?.cancelledCallInviteReceived(cancelled, error: error) }
    }
}

/// An invite the caller cancelled before it was answered.
public struct CancelledCallInvite: Sendable, CustomStringConvertible {
    /// The caller.
    public let from: String?
    /// The callee.
    public let to: String
    /// The call's SID.
    public let callSid: String
    /// The invite's custom parameters.
    public let customParameters: [String: String]

    public var description: String { "CancelledCallInvite(\(callSid))" }
}

/// A notification delegate that answers or refuses each invite at once, as a conference room
/// does: the client sends no 180 Ringing first, so a refused caller never hears ringing.
package protocol AnswersWithoutRinging: AnyObject {}
