import Dispatch
import Foundation
import VoiceSIP

extension VoiceClient {
    /// Makes this client reachable: validates the access token, sends REGISTER (unless the
    /// configuration says not to) and delivers incoming calls to `notificationDelegate` on
    /// `delegateQueue` (default main). `completion` runs once, on that queue, with nil or the error.
    public func register(
        accessToken: String, notificationDelegate: NotificationDelegate, delegateQueue: DispatchQueue = .main,
        callMessageDelegate: CallMessageDelegate? = nil, completion: @escaping @Sendable (VoiceError?) -> Void
    ) {
        let token: AccessToken
        do {
            token = try AccessToken(parsing: accessToken, now: Date())
        } catch {
            delegateQueue.async { completion(error) }
            return
        }
        let delegateBox = DelegateBox<NotificationDelegate>(notificationDelegate)
        let messageBox = callMessageDelegate.map { DelegateBox<CallMessageDelegate>($0) }
        agent.eventLoop.execute {
            self.accessToken = token
            self.notification = (delegateBox, delegateQueue, messageBox)
            guard self.configuration.registers else {
                delegateQueue.async { completion(nil) }
                return
            }
            self.registrationCompletions.append { error in delegateQueue.async { completion(error) } }
            self.agent.register()
        }
    }

    /// Stops receiving calls: unregisters (Expires: 0) and drops the notification delegate.
    public func unregister(accessToken: String, completion: @escaping @Sendable (VoiceError?) -> Void) {
        agent.eventLoop.execute {
            let queue = self.notification?.queue ?? .main
            self.notification = nil
            guard self.configuration.registers else {
                queue.async { completion(nil) }
                return
            }
            self.unregistrationCompletions.append { error in queue.async { completion(error) } }
            self.agent.unregister()
        }
    }

    /// Hands the SDK a push payload (`twi_message_type`, `twi_call_sid`, `twi_from`, `twi_to`,
    /// `twi_params`). A call payload for an invite this client already received is delivered to
    /// `delegate` as that invite; a cancel payload cancels it. Returns false when the payload is
    /// not one of ours or is malformed.
    /// - Parameter callMessageDelegate: When given, receives the invite's call messages (results
    ///   of ``CallInvite/sendMessage(_:)`` and messages from the caller) on `delegateQueue`,
    ///   instead of the one given at registration.
    public func handleNotification(
        _ payload: [String: String], delegate: NotificationDelegate, delegateQueue: DispatchQueue = .main,
        callMessageDelegate: CallMessageDelegate? = nil
    ) -> Bool {
        guard let parsed = try? CallInviteNotification(payload: payload) else { return false }
        let box = DelegateBox<NotificationDelegate>(delegate)
        let messageBox = callMessageDelegate.map { DelegateBox<CallMessageDelegate>($0) }
        agent.eventLoop.execute {
            guard let invite = self.invites.values.first(where: { $0.callSid == parsed.callSid.rawValue }) else {
                self.logger.info("notification for \(parsed.callSid.rawValue): no matching INVITE yet")
                return
            }
            switch parsed.kind {
            case .call:
                if let messageBox {
                    invite.messaging.withLock { messaging in
                        messaging.delegate = messageBox
                        messaging.queue = delegateQueue
                    }
                }
                delegateQueue.async { box.value?.callInviteReceived(invite) }
            case .cancel:
                self.cancelInvite(invite, delivering: (box, delegateQueue))
            }
        }
        return true
    }

    // MARK: - Incoming INVITEs (on the event loop)

    func incomingCall(_ handle: SIPCallHandle, invite request: SIPRequest) {
        guard let notification else {
            agent.reject(handle, statusCode: 480)
            return
        }
        let from = try? request.headers.from()
        let callID = (try? request.headers.callID()) ?? ""
        let invite = CallInvite(
            handle: handle, client: self, from: from?.uri.user ?? from?.uri.host, to: configuration.identity,
            callSid: ((try? CallSid(headers: request.headers)) ?? CallSid(callID: callID)).rawValue,
            customParameters: CallCustomHeaders.customParameters(from: request.headers),
            callerInfo: CallerInfo(headers: request.headers),
            messaging: CallInviteMessaging(delegate: notification.messages, queue: notification.queue))
        invites[handle] = invite
        agent.ring(handle)
        let queue = notification.queue
        let delegate = notification.delegate
        queue.async { delegate.value?.callInviteReceived(invite) }
    }

    func inviteEvent(_ invite: CallInvite, _ event: SIPInviteSessionEvent) {
        if case .infoReceived(let contentType, let body, let headers) = event {
            guard contentType.lowercased().hasPrefix("application/json") else { return }
            invite.receiveMessage(CallMessage(receivedContent: body, contentType: "application/json", headers: headers))
            return
        }
        guard case .terminated(let reason) = event else { return }
        invites[invite.handle] = nil
        guard case .cancelledByRemote = reason, let notification else { return }
        cancelInvite(invite, delivering: (notification.delegate, notification.queue))
    }

    private func cancelInvite(_ invite: CallInvite, delivering target: (DelegateBox<NotificationDelegate>, DispatchQueue)) {
        let cancelled = invite.status.withLock { status -> Bool in
            guard status == .pending else { return false }
            status = .cancelled
            return true
        }
        guard cancelled else { return }
        invites[invite.handle] = nil
        let value = CancelledCallInvite(
            from: invite.from, to: invite.to, callSid: invite.callSid, customParameters: invite.customParameters)
        let error = VoiceError(.requestTerminated, failureReason: "the caller cancelled", sipStatus: 487)
        let (delegate, queue) = target
        queue.async { delegate.value?.cancelledCallInviteReceived(value, error: error) }
    }

    // MARK: - Registration (on the event loop)

    func registrationChanged(_ event: SIPRegistrationEvent) {
        switch event {
        case .registered:
            let completions = registrationCompletions
            registrationCompletions = []
            for completion in completions { completion(nil) }
        case .unregistered:
            let completions = unregistrationCompletions
            unregistrationCompletions = []
            for completion in completions { completion(nil) }
        case .failed(let failure, _):
            let error = VoiceError(registrationFailure: failure)
            let completions = registrationCompletions + unregistrationCompletions
            registrationCompletions = []
            unregistrationCompletions = []
            for completion in completions { completion(error) }
        }
    }
}
