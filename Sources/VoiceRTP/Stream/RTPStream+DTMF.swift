import VoiceSupport

/// RFC 4733 digits being sent: while an event plays, each frame slot carries an event packet
/// (same SSRC and sequence space, the event's start timestamp) instead of audio.
struct DTMFState {
    var sequence = DTMFSequence()
    var sender: TelephoneEventSender?
    /// Frame slots still to stay silent: the gap after a digit, or a `w`.
    var quietFrames = 0

    /// Nothing queued, playing or pausing.
    var isIdle: Bool { sender == nil && quietFrames == 0 && sequence.isFinished }
}

extension RTPStream {
    /// Whether digits are being sent (or paused between); new ones wait until this is false.
    package var isSendingDigits: Bool { !dtmf.isIdle }

    /// Starts sending `digits` (`0`–`9`, `*`, `#`, `A`–`D`, `w` for a 500 ms pause) once the
    /// digits being sent are done. Each digit is a 100 ms event followed by a 60 ms gap.
    package mutating func sendDigits(_ digits: [Character]) {
        guard !digits.isEmpty else { return }
        if dtmf.sequence.isFinished {
            dtmf.sequence = DTMFSequence(digits)
        } else {
            dtmf.sequence.append(digits)
        }
    }

    /// Called once per frame slot before audio is encoded. Returns true when the slot was used
    /// for a telephone-event packet (or a silent gap), so no audio goes out in it.
    mutating func sendTelephoneEventIfDue<Output: RTPStreamOutput>(
        destination: SocketAddress, now: MediaTime, output: inout Output
    ) -> Bool {
        guard let pt = configuration.telephoneEventPayloadType else { return false }
        if dtmf.sender == nil, dtmf.quietFrames == 0 {
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
            timestamp: packet.timestamp, ssrc: configuration.ssrc, into: buffers.send)
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffers.send[headerLength..<(headerLength + 4)])
        guard let written = try? packet.event.write(into: payloadArea) else { return true }
        guard protectAndSend(packetLength: headerLength + written, payloadLength: written, to: destination, now: now, output: &output)
        else { return true }
        markerNext = true  // audio after an event starts a new talkspurt
        return true
    }
}
