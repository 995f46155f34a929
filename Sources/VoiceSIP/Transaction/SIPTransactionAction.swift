import VoiceSupport

/// What a transaction asks its driver to do after an event.
///
/// `Message` is whatever the driver stores per message (encoded bytes, a parsed message); the
/// transaction never looks inside it.
package enum SIPTransactionAction<Message> {
    /// Pass this message to the transport: a first send or a retransmission.
    case transmit(Message)
    /// INVITE client only: build the ACK for this non-2xx final response (RFC 3261 §17.1.1.3)
    /// and pass it to the transport. Emitted again for each retransmission of the response.
    case transmitACK(forResponse: Message)
    /// INVITE server only: the TU has not answered within 200 ms. Build a 100 (Trying) from the
    /// request and pass it back through `sendResponse`.
    case sendTrying
    /// Start (or restart) a timer that fires `after` from now.
    case startTimer(SIPTransactionTimer, after: MediaTime)
    /// Stop a timer if it is running.
    case cancelTimer(SIPTransactionTimer)
    /// Pass a received response up to the transaction user.
    case deliverResponse(Message, statusCode: Int)
    /// Pass a received request up to the transaction user (a new request, or an ACK to a 2xx).
    case deliverRequest(Message)
    /// The transaction timed out on this timer; a client TU treats it as a 408 (Request Timeout).
    case timedOut(SIPTransactionTimer)
    /// The transport reported a failure; the TU treats it as a 503 (Service Unavailable).
    case transportFailed
    /// The transaction reached Terminated; the driver drops it and all its timers.
    case terminated
}

extension SIPTransactionAction: Sendable where Message: Sendable {}
extension SIPTransactionAction: Equatable where Message: Equatable {}
