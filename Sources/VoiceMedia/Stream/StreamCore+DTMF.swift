/// RFC 4733 digits on the media thread: while an event plays, each frame slot carries an event
/// packet (same SSRC and sequence space, the event's start timestamp) instead of audio.
struct DTMFState {
    /// Digits waiting, taken from the controlling side without blocking.
    var queue: [Character] = []
    var sender: TelephoneEventSender?
    /// Frame slots still to stay silent: the pause after a digit, or a `w`.
    var quietFrames = 0
}

extension StreamCore {
    /// Tone length and the gap after it (as pjsip and baresip send them).
    static let digitDurationMs = 100
    static let interDigitGapMs = 60
    static let pauseMs = 500

    /// Called once per frame slot before audio is encoded. Returns true when the slot was used
    /// for a telephone-event packet (or a silent gap), so no audio goes out in it.
    func sendTelephoneEventIfDue(destination: SocketAddress, now: MediaTime) -> Bool {
        guard let pt = configuration.telephoneEventPayloadType else { return false }
        if dtmf.sender == nil, dtmf.quietFrames == 0 {
            if dtmf.queue.isEmpty, control.pendingDigits.load(ordering: .relaxed) > 0 {
                if let taken = control.digits.withLockIfAvailable({ q -> [Character] in
                    let t = q; q.removeAll(); return t
                }) {
                    control.pendingDigits.store(0, ordering: .relaxed)
                    dtmf.queue = taken
                }
            }
            guard !dtmf.queue.isEmpty else { return false }
            let next = dtmf.queue.removeFirst()
            if next == "w" || next == "W" {
                dtmf.quietFrames = StreamCore.pauseMs / configuration.ptime
                return false
            }
            let units = rtpClockRate / 1000
            dtmf.sender = try? TelephoneEventSender(
                digit: next, startTimestamp: rtpTimestamp, packetInterval: UInt16(clamping: frameRTPUnits),
                duration: UInt16(clamping: units * StreamCore.digitDurationMs))
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
        if sender.isFinished { dtmf.quietFrames = StreamCore.interDigitGapMs / configuration.ptime }
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
