import Foundation
import VoiceRTP

// Digits the far end pressed: RFC 4733 events from the media and SIP INFO from the signaling,
// once per press, to the delegate and the event sequence.
extension CallCore {
    /// An RFC 4733 event ended in the call's media; `units` is its duration in RTP clock units
    /// (the audio codec's clock, which telephone-event shares). Events that are not keys (a
    /// flash, a tone) are not digits and are not reported.
    func telephoneEventReceived(code: UInt8, duration units: Int) {
        guard let digit = TelephoneEvent.dtmfDigit(for: code) else { return }
        let rate = max(1, negotiated?.codec.rtpClockRate ?? 8_000)
        digitArrived(digit, duration: Double(units) / Double(rate), via: .rtpEvent)
    }

    /// A digit arrived either way: reported unless it is a press already reported the other way.
    func digitArrived(_ digit: Character, duration: TimeInterval, via transport: CallDigit.Transport) {
        guard !machine.isDisconnected, let received = receivedDigits.receive(digit, duration: duration, via: transport, at: now) else {
            return
        }
        let call = self.call
        announce(.digitReceived(received)) { $0.call(call, didReceiveDigit: received) }
    }
}
