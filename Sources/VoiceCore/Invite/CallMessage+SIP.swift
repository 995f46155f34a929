import NIOCore
import VoiceSIP
import VoiceSIPAgent

// A call message as SIP INFO: the identity headers, and the errors of a send.
extension CallMessage {
    /// The header fields the INFO carries: ``voiceEventSidHeader`` and ``messageTypeHeader``.
    var infoHeaders: SIPHeaders {
        SIPHeaders([(Self.voiceEventSidHeader, voiceEventSid), (Self.messageTypeHeader, messageType)])
    }

    /// The message a received INFO carries, nil unless its body is JSON (call messages are;
    /// DTMF relay is not): its identity from the header fields, a fresh SID and the default type
    /// when they are absent or empty.
    init?(receivedINFO body: [UInt8], contentType: String, headers: SIPHeaders) {
        guard contentType.lowercased().hasPrefix("application/json") else { return nil }
        let sid = headers.first(Self.voiceEventSidHeader).flatMap { $0.isEmpty ? nil : $0 }
        let type = headers.first(Self.messageTypeHeader).flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            content: String(decoding: body, as: UTF8.self), contentType: "application/json",
            messageType: type ?? Self.defaultMessageType, voiceEventSid: sid ?? Self.makeSid())
    }

    /// Sends the message as INFO on `handle` if it is valid and `admit` lets it through the rate
    /// limit; `outcome` gets nil once the peer accepted it (2xx), otherwise the error. On the
    /// agent's event loop.
    func send(
        over agent: SIPUserAgent, on handle: SIPCallHandle, admit: () -> Bool,
        outcome: @escaping @Sendable (VoiceError?) -> Void
    ) {
        do {
            try validateForSending()
        } catch {
            outcome(error)
            return
        }
        guard admit() else {
            outcome(CallMessageRateLimiter.rateExceededError)
            return
        }
        agent.sendInfo(handle, contentType: contentType, body: Array(content.utf8), headers: infoHeaders).whenComplete { result in
            switch result {
            case .success(let statusCode) where (200..<300).contains(statusCode): outcome(nil)
            case .success(let statusCode): outcome(Self.sendError(statusCode: statusCode))
            case .failure(let error): outcome(Self.sendError(error))
            }
        }
    }

    /// The error for an INFO whose final status is not 2xx.
    static func sendError(statusCode: Int) -> VoiceError {
        VoiceError(sipStatus: statusCode) ?? VoiceError(.badRequest, sipStatus: statusCode)
    }

    /// The error for an INFO that could not be sent or whose call went away before its result:
    /// 31481 when there is no dialog (any more), 31100 when the session refused the request.
    static func sendError(_ error: any Error) -> VoiceError {
        if let error = error as? SIPUserAgentError, error == .noSuchCall {
            return VoiceError(.callDoesNotExist, failureReason: "the call is over")
        }
        if let error = error as? SIPInviteSessionError, error == .notConfirmed {
            return VoiceError(.callDoesNotExist, failureReason: "\(error)")
        }
        return VoiceError(.malformedRequest, failureReason: "\(error)")
    }
}
