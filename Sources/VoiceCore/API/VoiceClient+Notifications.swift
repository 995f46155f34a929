import Dispatch
import Foundation
import NIOCore
import VoiceSIP

/// A call notification handed in before its INVITE arrived.
struct PendingNotification {
    let notification: CallInviteNotification
    let delegate: DelegateBox<NotificationDelegate>
    let queue: DispatchQueue
    let messages: DelegateBox<CallMessageDelegate>?
    var expiry: Scheduled<Void>?
}

extension VoiceClient {
    /// Hands the SDK a push payload (`twi_message_type`, `twi_call_sid`, `twi_from`, `twi_to`,
    /// `twi_params`), as an app does with a notification from its own push channel.
    ///
    /// - A call notification (`twilio.voice.call`) delivers the invite with that call SID to
    ///   `delegate`, once per delegate, with the notification's `twi_params` added to its
    ///   ``CallInvite/customParameters``. When the INVITE has not arrived yet, the notification
    ///   waits for it (up to 32 s) and the invite goes to `delegate` instead of the one given to
    ///   ``register(accessToken:notificationDelegate:delegateQueue:callMessageDelegate:completion:)``;
    ///   a client that never registered a delegate accepts that INVITE this way.
    /// - A cancel notification (`twilio.voice.cancel`) delivers a ``CancelledCallInvite``
    ///   (31487) to `delegate`; an invite with that SID still ringing can no longer be accepted.
    ///
    /// `callMessageDelegate` receives the results of ``CallInvite/sendMessage(_:)`` for that
    /// invite. Returns false, and does nothing, when the payload is not a voice notification or
    /// is malformed (no valid `twi_call_sid`, bad `twi_params`).
    public func handleNotification(
        _ payload: [String: String], delegate: NotificationDelegate, delegateQueue: DispatchQueue = .main,
        callMessageDelegate: CallMessageDelegate? = nil
    ) -> Bool {
        guard let parsed = try? CallInviteNotification(payload: payload) else { return false }
        let box = DelegateBox<NotificationDelegate>(delegate)
        let messages = callMessageDelegate.map { DelegateBox<CallMessageDelegate>($0) }
        onLoop { self.notified(parsed, delegate: box, queue: delegateQueue, messages: messages) }
        return true
    }

    /// On the event loop.
    private func notified(
        _ parsed: CallInviteNotification, delegate: DelegateBox<NotificationDelegate>, queue: DispatchQueue,
        messages: DelegateBox<CallMessageDelegate>?
    ) {
        let sid = parsed.callSid.rawValue
        let invite = invites.values.first { $0.callSid == sid }
        switch parsed.kind {
        case .call:
            if let invite {
                invite.mergeParameters(parsed.customParameters)
                if let messages {
                    invite.messaging.withLock { messaging in
                        messaging.delegate = messages
                        messaging.queue = queue
                    }
                }
                deliver(invite, to: CallInviteRecipient(delegate: delegate, queue: queue))
                return
            }
            pendingNotifications[sid]?.expiry?.cancel()
            var pending = PendingNotification(notification: parsed, delegate: delegate, queue: queue, messages: messages)
            pending.expiry = agent.eventLoop.scheduleTask(in: notificationLifetime) {
                guard self.pendingNotifications.removeValue(forKey: sid) != nil else { return }
                self.logger.info("call notification \(sid): no INVITE arrived")
            }
            pendingNotifications[sid] = pending
        case .cancel:
            if let invite {
                cancelInvite(invite, delivering: CallInviteRecipient(delegate: delegate, queue: queue))
                return
            }
            let pending = pendingNotifications.removeValue(forKey: sid)
            pending?.expiry?.cancel()
            let cancelled = CancelledCallInvite(
                from: parsed.from ?? pending?.notification.from, to: parsed.to.isEmpty ? configuration.identity : parsed.to,
                callSid: sid, customParameters: pending?.notification.customParameters ?? parsed.customParameters)
            CallInviteRecipient(delegate: delegate, queue: queue).tellCancelled(cancelled)
        }
    }
}
