import VoiceSupport
extension StreamCore {
    /// Keeps the render ring topped up from the jitter buffer. Without a render device, frames are
    /// pulled and dropped on the engine clock so the jitter buffer still plays out in real time.
    /// While the device is interrupted, or stops pulling (``DeviceActivityWatch``: a sound server
    /// starting up), the frames are pulled on the engine clock too, and dropped, so the delay
    /// does not pile up in the jitter buffer.
    func playOut(now: MediaTime) {
        let interrupted = control.isInterrupted
        if interrupted != playoutSawInterruption {
            playoutSawInterruption = interrupted
            nextVirtualPlayout = nil
        }
        let stalled =
            renderDeviceActive && !interrupted && renderWatch.isStalled(count: control.renderPulls.load(ordering: .relaxed), now: now)
        if stalled != playoutSawStall {
            playoutSawStall = stalled
            nextVirtualPlayout = nil
        }
        if renderDeviceActive, !interrupted, !stalled {
            var guardCount = 8
            let target = control.renderTarget.load(ordering: .relaxed)
            while renderRing.availableToRead < target, guardCount > 0 {
                // The jitter buffer is asked at the time this frame will start to play relative
                // to a ring kept at `target`, not at the tick's time: when a short (accelerated)
                // frame makes the loop produce twice in one tick, the second is due later.
                let behind = Int64(target - renderRing.availableToRead) * 1_000_000_000 / 48_000
                let n = produceFrame(now: now - MediaTime(nanoseconds: behind), room: renderRing.availableToWrite)
                renderRing.write(UnsafeBufferPointer(rebasing: decoded[0..<n]))
                guardCount -= 1
            }
        } else {
            if nextVirtualPlayout == nil { nextVirtualPlayout = now }
            var guardCount = 8
            while let due = nextVirtualPlayout, now >= due, guardCount > 0 {
                let n = produceFrame(now: due, room: decoded.count)
                nextVirtualPlayout = due + MediaTime(nanoseconds: Int64(max(n, 1)) * 1_000_000_000 / 48_000)
                guardCount -= 1
            }
        }
    }

    /// Takes the next frame from the jitter buffer and decodes, recovers or conceals it into
    /// `decoded`; returns the 48 kHz samples produced, at most `room` when a frame is stretched.
    func produceFrame(now: MediaTime, room: Int) -> Int {
        let decision = jitterBuffer.nextFrame(at: now, into: playoutPayload)
        var produced = 0
        switch decision {
        case .packet(let length, let duration):
            produced = decode(length: length, duration: duration)
        case .accelerate(let length, let duration, let urgent, let by):
            let n = decode(length: length, duration: duration)
            produced = timeStretch.accelerate(decoded, count: n, voiced: urgent, quietChange: to48k(by))
            timeStretchRemoved += UInt64(n - produced)
        case .stretch(let length, let duration, let urgent, let by):
            let n = decode(length: length, duration: duration)
            let limit = min(decoded.count, max(n, room))
            produced = timeStretch.stretch(
                UnsafeMutableBufferPointer(rebasing: decoded[0..<limit]), count: n, voiced: urgent, quietChange: to48k(by))
            timeStretchAdded += UInt64(produced - n)
        case .recoverFromNext(let length, let duration):
            let frames = to48k(duration)
            if let n = try? decoder.decodeFEC(
                from: UnsafeRawBufferPointer(rebasing: playoutPayload[0..<length]), frames48k: frames, into: decoded)
            {
                produced = n
            } else {
                produced = conceal(duration: duration)
            }
        case .conceal(let duration):
            produced = conceal(duration: duration)
        case .silence(let duration):
            produced = min(to48k(duration), decoded.count)
            UnsafeMutableBufferPointer(rebasing: decoded[0..<produced]).update(repeating: 0)
        }
        if control.onHold.load(ordering: .relaxed) {
            UnsafeMutableBufferPointer(rebasing: decoded[0..<produced]).update(repeating: 0)
        }
        outputLevel = StreamCore.peak(UnsafeBufferPointer(rebasing: decoded[0..<produced]))
        return produced
    }

    private func decode(length: Int, duration: Int) -> Int {
        do throws(MediaCodecError) {
            return try decoder.decode(UnsafeRawBufferPointer(rebasing: playoutPayload[0..<length]), into: decoded)
        } catch {
            malformedPackets += 1
            return conceal(duration: duration)
        }
    }

    private func conceal(duration: Int) -> Int {
        let frames = min(to48k(duration), decoded.count)
        if let n = try? decoder.conceal(frames48k: frames, into: decoded) { return n }
        UnsafeMutableBufferPointer(rebasing: decoded[0..<frames]).update(repeating: 0)
        return frames
    }

    @inline(__always) func to48k(_ rtpUnits: Int) -> Int { rtpUnits * 48_000 / rtpClockRate }
}
