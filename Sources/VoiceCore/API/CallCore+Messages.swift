import Dispatch
import Foundation
import NIOCore
import VoiceMedia
import VoiceSIP

// Call messages (user-defined INFO) both ways.
extension CallCore {
    /// Sends `message` as INFO with its identity headers; its own INFO result (matched by the
    /// request, never by arrival order) goes to the message delegate.
    func sendMessage(_ message: CallMessage) {
        guard let handle, machine.isConnected || machine.state == .reconnecting else {
            messageFailed(message, VoiceError(.callDoesNotExist, failureReason: "the call is not connected"))
            return
        }
        let now = self.now
        message.send(over: client.agent, on: handle, admit: { messageLimiter.admit(at: now) }) { error in
            if let error { self.messageFailed(message, error) } else { self.messageSent(message) }
        }
    }

    func messageSent(_ message: CallMessage) {
        guard let delegate = messageDelegate else { return }
        let call = self.call
        delegateQueue.async { delegate.value?.call(call, didSendMessage: message.voiceEventSid) }
    }

    func messageFailed(_ message: CallMessage, _ error: VoiceError) {
        guard let delegate = messageDelegate else { return }
        let call = self.call
        delegateQueue.async { delegate.value?.call(call, didFailToSendMessage: message, error: error) }
    }

    /// A message from the peer, on the confirmed call or (caller side) on the early dialog of a
    /// ringing one.
    func receiveMessage(contentType: String, body: [UInt8], headers: SIPHeaders) {
        guard let message = CallMessage(receivedINFO: body, contentType: contentType, headers: headers) else { return }
        let call = self.call
        if let delegate = messageDelegate {
            delegateQueue.async { delegate.value?.call(call, didReceiveMessage: message) }
        }
        let continuation = call.eventContinuation
        delegateQueue.async { continuation.yield(.messageReceived(message)) }
    }
}
