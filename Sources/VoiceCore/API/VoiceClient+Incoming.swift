import Dispatch
import Foundation
import VoiceSIP
import VoiceSIPAgent

extension VoiceClient {
    /// Makes this client reachable: checks the access token if one is given, sends REGISTER
    /// (unless ``VoiceClientConfiguration/registers`` is false) and delivers incoming calls to
    /// `notificationDelegate` on `delegateQueue`.
    ///
    /// ```swift
    /// client.register(notificationDelegate: app, delegateQueue: queue) { error in }                     // a plain SIP server
    /// client.register(accessToken: token, notificationDelegate: app, delegateQueue: queue) { error in } // a server that uses tokens
    /// ```
    /// - Parameters:
    ///   - accessToken: A Twilio-style access token, for a server that uses them: checked first
    ///     (one that is not a JWT, has expired or is not valid yet fails with 20101–20107 or
    ///     20157, and nothing is sent), then presented to the registrar's Bearer challenges. Nil
    ///     (the default): the client registers as the configuration's identity, its digest
    ///     credentials answer challenges, and no Bearer credential is sent.
    ///   - notificationDelegate: Receives call invites and cancelled invites.
    ///   - delegateQueue: Where the delegate and `completion` run; default main.
    ///   - callMessageDelegate: Receives the call messages of the invites this registration delivers.
    ///   - completion: Runs once, with nil when registered (or, without REGISTER, listening) or the error.
    public func register(
        accessToken: String? = nil, notificationDelegate: NotificationDelegate, delegateQueue: DispatchQueue = .main,
        callMessageDelegate: CallMessageDelegate? = nil, completion: @escaping @Sendable (VoiceError?) -> Void
    ) {
        let token: AccessToken?
        do throws(VoiceError) {
            token = try accessToken.map { text throws(VoiceError) in try AccessToken(parsing: text, now: Date()) }
        } catch {
            delegateQueue.async { completion(error) }
            return
        }
        let delegateBox = DelegateBox<NotificationDelegate>(notificationDelegate)
        let messageBox = callMessageDelegate.map { DelegateBox<CallMessageDelegate>($0) }
        onLoop {
            self.accessToken = token
            self.notification = (delegateBox, delegateQueue, messageBox)
            guard self.configuration.registers else {
                delegateQueue.async { completion(nil) }
                return
            }
            self.registrationCompletions.append { error in delegateQueue.async { completion(error) } }
            // They replace an earlier registration's: registering again without a token drops its Bearer credential.
            self.agent.register(credentials: token.map { [SIPAuthCredentials(bearerToken: $0.rawValue)] } ?? [])
        }
    }

    /// Stops receiving calls: unregisters (Expires: 0) and drops the notification delegate.
    /// - Parameters:
    ///   - accessToken: Not needed: the registration is removed with the credentials it was made
    ///     with. Accepted for the shape of Twilio's API.
    ///   - completion: Runs once, on the notification delegate's queue (main without one), with
    ///     nil or the error.
    public func unregister(accessToken: String? = nil, completion: @escaping @Sendable (VoiceError?) -> Void) {
        onLoop {
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

    // MARK: - Incoming INVITEs (on the event loop)

    func incomingCall(_ handle: SIPCallHandle, invite request: SIPRequest, replacing replaced: CallCore? = nil) {
        if let replaced {
            takeOver(replaced, with: handle, invite: request)
            return
        }
        let callID = (try? request.headers.callID()) ?? ""
        let callSid = ((try? CallSid(headers: request.headers)) ?? CallSid(callID: callID)).rawValue
        let pending = pendingNotifications.removeValue(forKey: callSid)
        pending?.expiry?.cancel()
        guard
            let target = pending.map({ CallInviteRecipient(delegate: $0.delegate, queue: $0.queue) })
                ?? notification.map({ CallInviteRecipient(delegate: $0.delegate, queue: $0.queue) })
        else {
            agent.reject(handle, statusCode: 480)
            return
        }
        let from = try? request.headers.from()
        let invite = CallInvite(
            handle: handle, client: self, from: from?.uri.user ?? from?.uri.host, to: configuration.identity,
            callSid: callSid, customParameters: CallCustomHeaders.customParameters(from: request.headers),
            callerInfo: CallerInfo(headers: request.headers),
            messaging: pending.map { CallInviteMessaging(delegate: $0.messages, queue: $0.queue) }
                ?? CallInviteMessaging(delegate: notification?.messages, queue: target.queue),
            requestURI: request.uri, requestHeaders: request.headers)
        if let pending { invite.mergeParameters(pending.notification.customParameters) }
        invites[handle] = invite
        // A delegate that answers or refuses at once (a conference room) sends no 180 first.
        if !(target.delegate.value is any AnswersWithoutRinging) { agent.ring(handle) }
        deliver(invite, to: target)
    }

    /// Hands `invite` to a notification delegate, once per delegate.
    func deliver(_ invite: CallInvite, to recipient: CallInviteRecipient) {
        let isNew = invite.recipients.withLock { recipients -> Bool in
            guard !recipients.contains(where: { $0.delegate.id == recipient.delegate.id }) else { return false }
            recipients.append(recipient)
            return true
        }
        guard isNew else { return }
        let delegate = recipient.delegate
        recipient.queue.async { delegate.value?.callInviteReceived(invite) }
    }

    func inviteEvent(_ invite: CallInvite, _ event: SIPInviteSessionEvent) {
        if case .infoReceived(let contentType, let body, let headers) = event {
            if let message = CallMessage(receivedINFO: body, contentType: contentType, headers: headers) { invite.receiveMessage(message) }
            return
        }
        guard case .terminated(let reason) = event else { return }
        invites[invite.handle] = nil
        guard case .cancelledByRemote = reason else { return }
        cancelInvite(invite)
    }

    /// Marks `invite` cancelled and tells `target`, or, without one (a SIP CANCEL), every
    /// delegate the invite was delivered to.
    func cancelInvite(_ invite: CallInvite, delivering target: CallInviteRecipient? = nil) {
        let cancelled = invite.status.withLock { status -> Bool in
            // A SIP CANCEL for an invite accepted whose accept has not reached the loop yet:
            // the accept fails as canceled (31008); the app, which answered, gets no cancelled invite.
            if status == .accepted, target == nil { status = .cancelled }
            guard status == .pending else { return false }
            status = .cancelled
            return true
        }
        guard cancelled else { return }
        invites[invite.handle] = nil
        let value = CancelledCallInvite(
            from: invite.from, to: invite.to, callSid: invite.callSid, customParameters: invite.customParameters)
        for recipient in target.map({ [$0] }) ?? invite.recipients.withLock({ $0 }) { recipient.tellCancelled(value) }
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

extension VoiceClient {
    /// An INVITE with Replaces (RFC 3891) took over `replaced`: the new call is answered at
    /// once, without ringing, with the old call's delegate, queue and device; the old one ends.
    func takeOver(_ replaced: CallCore, with handle: SIPCallHandle, invite request: SIPRequest) {
        let callID = (try? request.headers.callID()) ?? ""
        let from = try? request.headers.from()
        let invite = CallInvite(
            handle: handle, client: self, from: from?.uri.user ?? from?.uri.host, to: configuration.identity,
            callSid: CallSid(callID: callID).rawValue, customParameters: CallCustomHeaders.customParameters(from: request.headers),
            callerInfo: CallerInfo(headers: request.headers), messaging: CallInviteMessaging(delegate: nil, queue: replaced.delegateQueue),
            requestURI: request.uri, requestHeaders: request.headers)
        invites[handle] = invite
        // Read on the loop while the replaced call is not over: its delegate is released on the
        // delegate queue only after the call's end, which this loop has not sent there yet.
        guard !replaced.machine.isDisconnected, let delegate = replaced.delegate.value else {
            invite.reject(statusCode: 481)
            return
        }
        let options = AcceptOptions(callInvite: invite) { builder in
            builder.delegateQueue = replaced.delegateQueue
            builder.audioDevice = replaced.audioDevice
            builder.preferredAudioCodecs = replaced.preferredCodecs
        }
        let newCall = invite.accept(options: options, delegate: delegate)
        onLoop { replaced.replaced(by: newCall) }
    }
}
