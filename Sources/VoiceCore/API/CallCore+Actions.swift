import VoiceRTP
import Dispatch
import Foundation
import NIOCore
import VoiceMedia
import VoiceSIP

// What the app asks of a call: hang up, mute, hold, digits.
extension CallCore {
    func disconnect() {
        guard !machine.isDisconnected else { return }
        run(machine.disconnect(now: now))
    }

    func setMuted(_ muted: Bool) {
        guard machine.isConnected, call.isMuted != muted else { return }
        call.update { $0.isMuted = muted }
        media?.isMuted = muted
        publish(CallInsights.connection(muted ? .muted : .unmuted, callSid: sid))
    }

    func holdRefused(_ statusCode: Int?) {
        client.logger.warning("hold of \(sid) refused (\(statusCode.map(String.init) ?? "not possible now")): the call stays off hold")
        applyHold(false)
    }

    func resumeRefused(_ statusCode: Int?) {
        client.logger.warning("resume of \(sid) refused (\(statusCode.map(String.init) ?? "not possible now")): the call stays on hold")
        applyHold(true)
    }

    /// The local side of hold: the public flag and the media (silence out, no playback).
    func applyHold(_ onHold: Bool) {
        held = onHold
        call.update { $0.isOnHold = onHold }
        media?.isOnHold = onHold
    }

    func setOnHold(_ onHold: Bool) {
        guard machine.isConnected, let handle, held != onHold else { return }
        applyHold(onHold)
        if onHold { client.agent.hold(handle) } else { client.agent.resume(handle) }
        signalingState(.haveLocalOffer)
        publish(CallInsights.connection(onHold ? .hold : .unhold, callSid: sid))
    }

    func sendDigits(_ digits: String) {
        guard machine.isConnected, !digits.isEmpty, digits.allSatisfy({ "0123456789*#w".contains($0) }) else {
            client.logger.debug("sendDigits(\(digits)) ignored: not connected or not 0-9 * # w")
            return
        }
        if negotiated?.telephoneEventPayloadType != nil, let media {
            do {
                try media.sendDigits(digits)
                return
            } catch {
                client.logger.warning("RFC 4733 digits failed, falling back to INFO: \(error)")
            }
        }
        sendDigitsByINFO(DTMFSequence(Array(digits)))
    }

    /// INFO application/dtmf-relay, one digit at a time, paced as RFC 4733 digits are (the peer
    /// has no telephone-event): each INFO carries the tone's duration, the next follows after
    /// the tone and its gap, `w` waits its pause.
    func sendDigitsByINFO(_ sequence: DTMFSequence) {
        var sequence = sequence
        guard let handle, machine.isConnected, let step = sequence.next() else { return }
        let wait: Int
        switch step {
        case .silence(let milliseconds):
            wait = milliseconds
        case .tone(let digit, let milliseconds):
            wait = milliseconds
            if let relay = SIPDTMFRelay(digit: digit, duration: milliseconds) {
                client.agent.sendInfo(handle, contentType: SIPDTMFRelay.contentType, body: relay.body).whenFailure { error in
                    self.client.logger.debug("digit \(digit) by INFO failed: \(error)")
                }
            }
        }
        let rest = sequence
        eventLoop.scheduleTask(in: .milliseconds(Int64(wait))) { self.sendDigitsByINFO(rest) }
    }
}
