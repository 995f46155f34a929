import VoiceSupport
extension JitterBuffer {
    /// Produces the next frame to render. Call it each time the playout side needs audio
    /// (normally every `frameDuration`; after a longer packet, once its duration has elapsed).
    /// Real-time safe: allocates nothing.
    ///
    /// - Parameters:
    ///   - now: the current playout time.
    ///   - payload: caller-owned buffer of at least `maxPayloadSize` bytes; receives the payload
    ///     for ``JitterBufferPlayout/packet(length:duration:)`` and
    ///     ``JitterBufferPlayout/recoverFromNext(length:duration:)``. A packet that does not fit
    ///     is discarded and concealed instead.
    /// - Returns: what to render; its duration is how far the output advanced.
    package mutating func nextFrame(at now: MediaTime, into payload: UnsafeMutableRawBufferPointer) -> JitterBufferPlayout {
        switch phase {
        case .idle:
            return silence(configuration.frameDuration)
        case .buffering:
            refreshTarget()
            let head = slots[index(headSeq)]
            guard head.state == .buffered, head.seq == headSeq else {
                return silence(configuration.frameDuration)
            }
            playoutDelayNs = now.nanoseconds - sendNs(head.ts) - window.minimum
            guard playoutDelayNs >= targetNs else { return silence(configuration.frameDuration) }
            phase = .playing
            nextSeq = headSeq
            playTs = head.ts
            lastAdaptation = now
            underrunUnits = 0
        case .playing:
            refreshTarget()
        }
        return play(at: now, into: payload)
    }

    /// One playout step while playing; every path either returns or consumes a slot, so the
    /// loop is bounded by the slot count.
    mutating func play(at now: MediaTime, into payload: UnsafeMutableRawBufferPointer) -> JitterBufferPlayout {
        let delay = now.nanoseconds - sendNs(playTs) - window.minimum
        playoutDelayNs = delay
        var mayAdaptSpeech = true
        if let last = lastAdaptation { mayAdaptSpeech = now - last >= configuration.adaptationInterval }
        var mayAdaptSilence = true
        if delay >= targetNs + 2 * frameNs {
            if excessSince == nil { excessSince = now }
        } else {
            excessSince = nil
        }
        var mayDropSpeech = false
        if let since = excessSince { mayDropSpeech = now - since >= configuration.shrinkPatience }
        for _ in 0...(slots.count + 1) {
            guard bufferedCount > 0 else { break }
            let i = index(nextSeq)
            if slots[i].state == .buffered, slots[i].seq == nextSeq {
                let slot = slots[i]
                if slot.ts + Int64(slot.duration) <= playTs {
                    dropLate(at: i)
                    continue
                }
                let gap = slot.ts - playTs
                if gap > 0 {
                    // Sequence contiguous, timestamp ahead: a DTX gap.
                    if let out = silenceGap(gap, delay: delay, now: now, adapt: &mayAdaptSilence) { return out }
                    continue
                }
                if mayAdaptSilence, mayAdaptSpeech, slot.marker, continuity == .pause, delay < targetNs {
                    // Talkspurt start (a marker after a real pause; rate-limited as speech is, so
                    // a peer that marks often cannot hole its own audio): grow with silence before it.
                    mayAdaptSilence = false
                    return inserted(silence: true, now: now)
                }
                if !configuration.timeStretch, mayAdaptSpeech, delay < targetNs {
                    mayAdaptSpeech = false
                    return inserted(silence: false, now: now)
                }
                if mayAdaptSpeech, mayDropSpeech, dropForNext(at: i) {
                    mayAdaptSpeech = false
                    lastAdaptation = now
                    continue
                }
                guard configuration.timeStretch else { return playSlot(at: i, into: payload, now: now) }
                // A band a margin wide centred on the target; quiet frames are changed as soon as
                // the delay leaves it, voiced ones only further out (see `timeStretch`).
                let half = stretchMarginNs / 2
                if delay < targetNs - half {
                    let urgent = delay < targetNs - 3 * half
                    return playSlot(at: i, into: payload, now: now, scale: .stretch(urgent: urgent, by: targetNs - delay))
                }
                if delay >= targetNs + half {
                    let urgent = delay >= targetNs + frameNs + half
                    return playSlot(at: i, into: payload, now: now, scale: .accelerate(urgent: urgent, by: delay - targetNs))
                }
                return playSlot(at: i, into: payload, now: now)
            }
            // The frame at the playout position is missing.
            guard let j = firstBuffered(after: nextSeq) else { break }
            let next = slots[j]
            if next.ts + Int64(next.duration) <= playTs {
                dropLate(at: j)
                continue
            }
            let gap = next.ts - playTs
            if gap <= 0 {
                // Its time was already covered (underrun concealment): skip to the next packet.
                nextSeq = next.seq
                continue
            }
            if gap <= Int64(next.duration) {
                return recover(from: j, gap: gap, into: payload)
            }
            let lossUnits = (next.seq - nextSeq) * Int64(lastDuration)
            if gap > lossUnits + Int64(next.duration) {
                // More time than the missing packets can fill: the excess is a DTX gap.
                if let out = silenceGap(gap - lossUnits, delay: delay, now: now, adapt: &mayAdaptSilence) { return out }
                continue
            }
            let units = min(Int64(lastDuration), gap - Int64(next.duration))
            playTs += units
            if nextSeq + 1 < next.seq { nextSeq += 1 }
            counters.concealedFrames += 1
            continuity = .speech
            return .conceal(duration: Int(units))
        }
        return underrun(delay: delay)
    }

    /// Nothing buffered for the playout position: conceal while the clock runs (or, below
    /// target, without advancing, which grows the delay); silence after `maxDelay` of it.
    /// Time-scaled, "below" means below the band around the target: within it the delay is
    /// where it should be, and the missing packet is far more likely lost than late (a loss
    /// whose successor has not arrived yet looks the same), so it is concealed in its place
    /// rather than pushing the whole stream a frame later, to be shed again by time-scaling.
    mutating func underrun(delay: Int64) -> JitterBufferPlayout {
        let units = lastDuration
        let floor = configuration.timeStretch ? targetNs - stretchMarginNs / 2 : targetNs
        if delay < floor {
            counters.insertedFrames += 1
        } else {
            playTs += Int64(units)
        }
        underrunUnits += Int64(units)
        continuity = .pause
        if underrunUnits > maxDelayUnits { return silence(units) }
        counters.underrunFrames += 1
        return .conceal(duration: units)
    }

    /// A timestamp gap with no loss before the next packet: silence, and the moment to adapt.
    /// Returns nil when the whole remaining gap was skipped and the packet can play now.
    mutating func silenceGap(_ gap: Int64, delay: Int64, now: MediaTime, adapt: inout Bool) -> JitterBufferPlayout? {
        let frame = Int64(configuration.frameDuration)
        var remaining = gap
        continuity = .pause
        if adapt, delay >= targetNs + frameNs {
            adapt = false
            let skip = min(remaining, frame)
            playTs += skip
            remaining -= skip
            counters.removedFrames += 1
            lastAdaptation = now
            if remaining == 0 { return nil }
        } else if adapt, delay < targetNs {
            adapt = false
            return inserted(silence: true, now: now)
        }
        let units = min(remaining, frame)
        playTs += units
        return silence(Int(units))
    }

    /// One frame that does not advance the playout position (the delay grows by a frame).
    mutating func inserted(silence isSilence: Bool, now: MediaTime) -> JitterBufferPlayout {
        counters.insertedFrames += 1
        lastAdaptation = now
        if isSilence { return silence(configuration.frameDuration) }
        return .conceal(duration: lastDuration)
    }

    /// Drops the packet at `i` to shrink the delay if its successor is buffered and contiguous.
    mutating func dropForNext(at i: Int) -> Bool {
        let slot = slots[i]
        let n = index(slot.seq + 1)
        guard slots[n].state == .buffered, slots[n].seq == slot.seq + 1,
            slots[n].ts == slot.ts + Int64(slot.duration)
        else { return false }
        release(at: i)
        counters.discarded += 1
        counters.removedFrames += 1
        nextSeq = slot.seq + 1
        playTs = slots[n].ts
        return true
    }

    /// How a played packet is to be time-scaled, and by how much (nanoseconds) the delay is off.
    enum Scale { case none, accelerate(urgent: Bool, by: Int64), stretch(urgent: Bool, by: Int64) }

    /// Copies the packet at `i` out and advances past it.
    mutating func playSlot(
        at i: Int, into payload: UnsafeMutableRawBufferPointer, now: MediaTime, scale: Scale = .none
    ) -> JitterBufferPlayout {
        let slot = slots[i]
        release(at: i)
        nextSeq = slot.seq + 1
        playTs = slot.ts + Int64(slot.duration)
        guard copyPayload(of: i, into: payload) else {
            counters.discarded += 1
            counters.concealedFrames += 1
            return .conceal(duration: slot.duration)
        }
        lastDuration = slot.duration
        underrunUnits = 0
        continuity = .speech
        counters.playedPackets += 1
        counters.emittedUnits += slot.duration
        counters.emittedDelay += Double(max(0, now.nanoseconds - slot.arrival.nanoseconds)) / 1e9 * Double(slot.duration)
        if slot.origin == .redundancy { counters.recoveredByRedundancy += 1 }
        switch scale {
        case .none:
            return .packet(length: slot.length, duration: slot.duration)
        case .accelerate(let urgent, let ns):
            counters.acceleratedFrames += 1
            return .accelerate(length: slot.length, duration: slot.duration, urgent: urgent, by: units(ns))
        case .stretch(let urgent, let ns):
            counters.stretchedFrames += 1
            return .stretch(length: slot.length, duration: slot.duration, urgent: urgent, by: units(ns))
        }
    }

    /// RTP units in `ns` nanoseconds.
    func units(_ ns: Int64) -> Int { Int(ns / 1_000 * Int64(configuration.clockRate) / 1_000_000) }

    /// Reports the frame before the packet at `j` as recoverable from it; the packet stays
    /// buffered and plays next.
    mutating func recover(from j: Int, gap: Int64, into payload: UnsafeMutableRawBufferPointer) -> JitterBufferPlayout {
        let next = slots[j]
        nextSeq = next.seq
        playTs = next.ts
        guard copyPayload(of: j, into: payload) else {
            counters.concealedFrames += 1
            return .conceal(duration: Int(gap))
        }
        counters.recoveredFrames += 1
        continuity = .speech
        return .recoverFromNext(length: next.length, duration: Int(gap))
    }

    /// Index of the lowest buffered sequence number above `seq`, if any.
    func firstBuffered(after seq: Int64) -> Int? {
        var s = seq + 1
        while s <= highestSeq, s - seq < Int64(slots.count) {
            let i = index(s)
            if slots[i].state == .buffered, slots[i].seq == s { return i }
            s += 1
        }
        return nil
    }

    /// Drops a buffered packet whose time has passed.
    mutating func dropLate(at i: Int) {
        let seq = slots[i].seq
        release(at: i)
        counters.late += 1
        if seq >= nextSeq { nextSeq = seq + 1 }
    }

    mutating func release(at i: Int) {
        slots[i].state = .consumed
        bufferedCount -= 1
    }

    /// Copies the payload stored at slot `i` into `payload`; false if it does not fit.
    func copyPayload(of i: Int, into payload: UnsafeMutableRawBufferPointer) -> Bool {
        let length = slots[i].length
        guard payload.count >= length else { return false }
        guard length > 0, let dst = payload.baseAddress else { return true }
        let offset = i * configuration.maxPayloadSize
        storage.withUnsafeBytes { src in
            if let base = src.baseAddress { dst.copyMemory(from: base + offset, byteCount: length) }
        }
        return true
    }

    mutating func silence(_ units: Int) -> JitterBufferPlayout {
        counters.silenceFrames += 1
        excessSince = nil
        return .silence(duration: units)
    }
}
