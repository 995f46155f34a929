import VoiceSupport
/// RFC 4733 digits on the media thread: while an event plays, each frame slot carries an event
/// packet (same SSRC and sequence space, the event's start timestamp) instead of audio.
struct DTMFState {
    /// The digits being sent, taken from the controlling side without blocking.
    var sequence = DTMFSequence()
    var sender: TelephoneEventSender?
    /// Frame slots still to stay silent: the gap after a digit, or a `w`.
    var quietFrames = 0
}

extension StreamCore {
    /// Called once per frame slot before audio is encoded. Returns true when the slot was used
    /// for a telephone-event packet (or a silent gap), so no audio goes out in it.
    func sendTelephoneEventIfDue(destination: SocketAddress, now: MediaTime) -> Bool {
        guard let pt = configuration.telephoneEventPayloadType else { return false }
        if dtmf.sender == nil, dtmf.quietFrames == 0 {
            if dtmf.sequence.isFinished, control.pendingDigits.load(ordering: .relaxed) > 0 {
                if let taken = control.digits.withLockIfAvailable({ q -> [Character] in
                    let t = q; q.removeAll(); return t
                }) {
                    control.pendingDigits.store(0, ordering: .relaxed)
                    dtmf.sequence = DTMFSequence(taken)
                }
            }
            switch dtmf.sequence.next() {
            case nil:
                return false
            case .silence(let milliseconds):
                // This slot is the first of the silence (audio goes out in it).
                dtmf.quietFrames = max(0, milliseconds / configuration.ptime - 1)
                return false
            case .tone(let digit, let milliseconds):
                let units = rtpClockRate / 1000
                dtmf.sender = try? TelephoneEventSender(
                    digit: digit, startTimestamp: rtpTimestamp, packetInterval: UInt16(clamping: frameRTPUnits),
                    duration: UInt16(clamping: units * milliseconds))
            }
        }
        if dtmf.quietFrames > 0, dtmf.sender == nil {
            dtmf.quietFrames -= 1
            return false
        }
        guard var sender = dtmf.sender, let packet = sender.tick() else {
            dtmf.sender = nil
            return false
        }
        dtmf.sender = sender.isFinished ? nil : sender
        let headerLength = RTPHeader.writeMinimal(
            marker: packet.marker, payloadType: pt, sequenceNumber: sequenceNumber,
            timestamp: packet.timestamp, ssrc: configuration.ssrc, into: sendBuffer)
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[headerLength..<(headerLength + 4)])
        guard let written = try? packet.event.write(into: payloadArea) else { return true }
        guard protectAndSend(packetLength: headerLength + written, payloadLength: written, to: destination, now: now)
        else { return true }
        markerNext = true  // audio after an event starts a new talkspurt
        return true
    }
}
