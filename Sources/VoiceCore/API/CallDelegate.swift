/// Receives a call's state changes, on the call's delegate queue, in order.
///
/// The first three methods are required; the others have empty default implementations.
/// The SDK keeps a strong reference to the delegate until the call is disconnected.
public protocol CallDelegate: AnyObject {
    /// The call connected (the callee answered, or our answer was acknowledged).
    func callDidConnect(_ call: Call)
    /// The call ended before it connected.
    func call(_ call: Call, didFailToConnectWithError error: VoiceError)
    /// A connected call ended; `error` is nil when it ended normally (either side hung up).
    func call(_ call: Call, didDisconnectWithError error: VoiceError?)
    /// The callee is being alerted (caller side only; never for an accepted invite). When the
    /// callee's side sends early media (183 Session Progress with SDP: a ringback of its own,
    /// an announcement), the call plays it from now on and sends only silence until answered.
    func callDidStartRinging(_ call: Call)
    /// Media or signaling was interrupted; the SDK is trying to recover (53405 or 53001).
    func call(_ call: Call, isReconnectingWithError error: VoiceError)
    /// The interruption `call(_:isReconnectingWithError:)` reported is over.
    func callDidReconnect(_ call: Call)
    /// The set of quality warnings changed.
    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<CallQualityWarning>,
              previousWarnings: Set<CallQualityWarning>)
    /// The call's audio device failed or could not open: the call stays connected with its
    /// audio off (silence sent, nothing played) while the SDK reopens the device. Reported once
    /// the call has connected.
    func call(_ call: Call, audioInterruptionDidBegin interruption: CallAudioInterruption)
    /// The device runs again and the call's audio is back.
    func callAudioInterruptionDidEnd(_ call: Call)
    /// Audio flows both ways: the peer's RTP arrives and its RTCP reports receiving ours
    /// (Sinch's `callDidEstablish`, which comes after answering; ``callDidConnect(_:)`` is Twilio's).
    func callDidEstablishMedia(_ call: Call)
    /// A Sinch call-quality event: a problem began or ended (``CallQualityWarningEvent``).
    func callDidEmitCallQualityEvent(_ call: Call, event: CallQualityWarningEvent)
    /// The far end pressed a key (DTMF): once per press, in order, however it was sent
    /// (``CallDigit``). An IVR or a voice bot reads its caller's choices here.
    func call(_ call: Call, didReceiveDigit digit: CallDigit)
    /// The far end asks us to call someone else (a SIP REFER). Accept it with
    /// ``CallTransferRequest/accept(options:delegate:)`` or refuse it; the default refuses,
    /// which is what a server should do with a transfer it did not expect.
    func call(_ call: Call, didReceiveTransferRequest request: CallTransferRequest)
    /// How a transfer of ours goes (``Call/transfer(to:)``, ``Call/transfer(replacing:)``).
    func call(_ call: Call, transferDidProgress progress: CallTransferProgress)
    /// The far end's transfer replaced this call with `newCall` (an attended transfer ended
    /// here): `newCall` is connected and reports to this delegate, and this call ends with
    /// ``CallEndCause/replaced``.
    func call(_ call: Call, wasReplacedBy newCall: Call)
}

extension CallDelegate {
    public func callDidStartRinging(_ call: Call) {}
    public func call(_ call: Call, isReconnectingWithError error: VoiceError) {}
    public func callDidReconnect(_ call: Call) {}
    public func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<CallQualityWarning>,
                     previousWarnings: Set<CallQualityWarning>) {}
    public func call(_ call: Call, audioInterruptionDidBegin interruption: CallAudioInterruption) {}
    public func callAudioInterruptionDidEnd(_ call: Call) {}
    public func callDidEmitCallQualityEvent(_ call: Call, event: CallQualityWarningEvent) {}
    public func callDidEstablishMedia(_ call: Call) {}
    public func call(_ call: Call, didReceiveDigit digit: CallDigit) {}
    public func call(_ call: Call, didReceiveTransferRequest request: CallTransferRequest) { request.reject() }
    public func call(_ call: Call, transferDidProgress progress: CallTransferProgress) {}
    public func call(_ call: Call, wasReplacedBy newCall: Call) {}
}

/// Receives incoming call invites and their cancellations, on the queue given at registration.
public protocol NotificationDelegate: AnyObject {
    /// A call arrived; accept or reject it.
    func callInviteReceived(_ callInvite: CallInvite)
    /// The caller cancelled before the invite was accepted or rejected (31487 / 31008).
    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError)
}

/// Receives the outcome of call messages (SIP INFO with application/json) and messages from the peer.
public protocol CallMessageDelegate: AnyObject {
    /// A message arrived on a call.
    func call(_ call: Call, didReceiveMessage message: CallMessage)
    /// The peer accepted a message we sent on a call.
    func call(_ call: Call, didSendMessage voiceEventSid: String)
    /// A message we sent on a call failed (too large, too many per minute, refused, call ended).
    func call(_ call: Call, didFailToSendMessage message: CallMessage, error: VoiceError)
    /// A message arrived on an invite not yet accepted.
    func callInvite(_ callInvite: CallInvite, didReceiveMessage message: CallMessage)
    /// The peer accepted a message we sent on an invite.
    func callInvite(_ callInvite: CallInvite, didSendMessage voiceEventSid: String)
    /// A message we sent on an invite failed.
    func callInvite(_ callInvite: CallInvite, didFailToSendMessage message: CallMessage, error: VoiceError)
}

extension CallMessageDelegate {
    public func call(_ call: Call, didReceiveMessage message: CallMessage) {}
    public func call(_ call: Call, didSendMessage voiceEventSid: String) {}
    public func call(_ call: Call, didFailToSendMessage message: CallMessage, error: VoiceError) {}
    public func callInvite(_ callInvite: CallInvite, didReceiveMessage message: CallMessage) {}
    public func callInvite(_ callInvite: CallInvite, didSendMessage voiceEventSid: String) {}
    public func callInvite(_ callInvite: CallInvite, didFailToSendMessage message: CallMessage, error: VoiceError) {}
}
