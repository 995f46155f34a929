import VoiceRTP
import VoiceSupport

extension StreamDriver {
    /// Sends every full frame the capture ring holds. Without a capture device, while the
    /// device is interrupted (either direction: both tracks are off then), or while its capture
    /// stalls (``DeviceActivityWatch``), silence is sent on the engine clock, so the peer still
    /// sees media and RTCP and the call's timeline goes on.
    func sendCaptured(now: MediaTime, output: inout Output) {
        if capturePacing.update(interrupted: control.isInterrupted, deviceCount: control.captureDeliveries.load(ordering: .relaxed), now: now) {
            // Silence stood in for the interrupted or stalled device: what it delivered meanwhile is stale.
            captureRing.discard(captureRing.availableToRead)
            encodedRing.removeAll()
        }
        if case .engineClock = capturePacing.pacer {
            while let due = capturePacing.due(by: now) {
                stream.sendSilence(at: now, output: &output)
                recordingTap?.recordSentSilence(frameSamples)
                capturePacing.advance(to: due + MediaTime.milliseconds(Int64(ptime)))
            }
            return
        }
        // A device catching up in a burst (a sound server after a stall) must not add its delay
        // to the call: beyond one frame and 60 ms the backlog is dropped, oldest first.
        let excess = captureRing.availableToRead - frameSamples - Self.maximumCaptureBacklog
        if excess > 0 {
            captureRing.discard(excess)
            control.captureOverflows.add(1, ordering: .relaxed)
        }
        let frame = UnsafeMutableBufferPointer(rebasing: captureFrame[0..<frameSamples])
        while true {
            // A frame encoded for us goes once the whole frames captured before it have gone.
            if let encoded = encodedRing.first, captureRing.readPosition + frameSamples > encoded.pcmPosition {
                let partial = encoded.pcmPosition - captureRing.readPosition
                if partial > 0 {
                    // Less than a frame before it: the framing moved (a new ptime); it cannot be sent.
                    captureRing.discard(partial)
                    control.captureOverflows.add(1, ordering: .relaxed)
                }
                if !stream.send(encoded: encoded.payload, samples: encoded.samples, peak: encoded.peak, level: encoded.level, at: now, output: &output) {
                    stream.sendSilence(at: now, output: &output)
                    control.captureOverflows.add(1, ordering: .relaxed)
                }
                recordingTap?.recordSentSilence(encoded.samples)
                encodedRing.removeFirst()
                continue
            }
            guard captureRing.availableToRead >= frameSamples else { break }
            captureRing.read(into: frame)
            stream.send(frame: frame, at: now, output: &output)
            recordingTap?.recordSent(UnsafeBufferPointer(frame))
        }
    }

    /// Captured 48 kHz samples that may wait beyond one frame: 60 ms, three 20 ms device
    /// periods, more than a device delivering one period per tick ever leaves.
    static let maximumCaptureBacklog = 2_880

    /// Keeps the render ring topped up from the stream. Without a render device, frames are
    /// played out and dropped on the engine clock so the jitter buffer still plays out in real
    /// time. While the device is interrupted, or stops pulling (``DeviceActivityWatch``: a sound
    /// server starting up), the frames are played out on the engine clock too, and dropped, so
    /// the delay does not pile up in the jitter buffer.
    func playOut(now: MediaTime) {
        _ = playoutPacing.update(interrupted: control.isInterrupted, deviceCount: control.renderPulls.load(ordering: .relaxed), now: now)
        var output = Output(driver: self)
        if case .device = playoutPacing.pacer {
            output.playsToDevice = true
            var guardCount = 8
            let target = control.renderTarget.load(ordering: .relaxed)
            while renderRing.availableToRead < target, guardCount > 0 {
                // The jitter buffer is asked at the time this frame will start to play relative
                // to a ring kept at `target`, not at the tick's time: when a short (accelerated)
                // frame makes the loop produce twice in one tick, the second is due later.
                let behind = Int64(target - renderRing.availableToRead) * 1_000_000_000 / 48_000
                stream.playout(at: now - MediaTime(nanoseconds: behind), room: renderRing.availableToWrite, output: &output)
                guardCount -= 1
            }
        } else {
            var guardCount = 8
            while let due = playoutPacing.due(by: now), guardCount > 0 {
                let n = stream.playout(at: due, room: 48 * 120, output: &output)
                playoutPacing.advance(to: due + MediaTime(nanoseconds: Int64(max(n, 1)) * 1_000_000_000 / 48_000))
                guardCount -= 1
            }
        }
    }
}
