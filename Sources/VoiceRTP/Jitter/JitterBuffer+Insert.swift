import VoiceSupport
extension JitterBuffer {
    /// Stores one received RTP packet. Real-time safe: copies `payload` into preallocated
    /// storage and allocates nothing.
    ///
    /// - Parameters:
    ///   - sequenceNumber: RTP sequence number (wraps at 65 535).
    ///   - timestamp: RTP timestamp (wraps at 2³²).
    ///   - ssrc: RTP synchronization source; a new value resynchronizes the buffer.
    ///   - marker: RTP marker bit (start of a talkspurt for audio).
    ///   - payload: the RTP payload; copied, not retained.
    ///   - duration: RTP units of audio in the payload (e.g. 960, 1920, 2880 at 48 kHz).
    ///   - arrival: when the packet was received.
    /// - Returns: what happened to the packet.
    package mutating func insert(
        sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool,
        payload: UnsafeRawBufferPointer, duration: Int, arrival: MediaTime
    ) -> JitterBufferInsertResult {
        counters.received += 1
        guard payload.count <= configuration.maxPayloadSize else {
            counters.tooLarge += 1
            return .tooLarge
        }
        guard duration > 0, duration <= configuration.clockRate else {
            counters.outOfRange += 1
            return .outOfRange
        }
        guard phase != .idle else {
            startStream(sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc)
            store(seq: highestSeq, ts: highestTs, marker: marker, payload: payload, duration: duration, arrival: arrival)
            recordDelay(ts: highestTs, arrival: arrival)
            return .accepted
        }
        guard ssrc == self.ssrc else {
            counters.ssrcChanges += 1
            return resynchronize(sequenceNumber, timestamp, ssrc, marker, payload, duration, arrival)
        }

        let seq = extend(sequenceNumber)
        let ts = extend(timestamp)
        let seqDelta = seq - highestSeq
        let pastReference = phase == .playing ? playTs : slots[index(headSeq)].ts
        let futureReference = max(pastReference, highestTs)
        let jumped =
            seqDelta > Int64(configuration.maxDropout)
            || seqDelta < -Int64(configuration.maxMisorder)
            || ts - futureReference > jumpUnits
            || pastReference - ts > jumpUnits
        if jumped {
            if probeSeq == sequenceNumber {
                return resynchronize(sequenceNumber, timestamp, ssrc, marker, payload, duration, arrival)
            }
            probeSeq = sequenceNumber &+ 1
            counters.outOfRange += 1
            return .outOfRange
        }
        probeSeq = nil

        let slot = slots[index(seq)]
        if slot.seq == seq, slot.state != .empty {
            guard slot.state == .buffered, slot.origin == .redundancy else {
                counters.duplicates += 1
                return .duplicate
            }
            // The packet overtook nothing: its redundant copy came first (reordering), and
            // the frame was never missing. The copy was the spare one.
            slots[index(seq)].origin = .packet
            counters.redundantDuplicates += 1
            recordDelay(ts: ts, arrival: arrival)
            return .accepted
        }
        recordDelay(ts: ts, arrival: arrival)
        let isLate: Bool
        switch phase {
        case .playing: isLate = seq < nextSeq || ts + Int64(duration) <= playTs
        case .buffering: isLate = seq < headSeq && highestSeq - seq >= Int64(slots.count)
        case .idle: isLate = false
        }
        if isLate {
            consecutiveLate += 1
            if consecutiveLate > configuration.maxConsecutiveLate {
                return resynchronize(sequenceNumber, timestamp, ssrc, marker, payload, duration, arrival)
            }
            counters.late += 1
            return .late
        }
        consecutiveLate = 0
        makeRoom(for: seq, ts: ts)
        store(seq: seq, ts: ts, marker: marker, payload: payload, duration: duration, arrival: arrival)
        return .accepted
    }

    /// Stores a frame carried as redundancy (RFC 2198) in a later packet, in the slot of the
    /// packet that first carried it (`sequenceNumber`: the later packet's minus the frames in
    /// between). Only a gap behind the newest packet is filled: a frame already buffered or
    /// played, or one whose turn has gone, is left out. A redundant copy neither trains the
    /// delay estimate (it arrives a frame or two after its original would have) nor counts as
    /// a received, duplicate or late packet; it has counters of its own.
    package mutating func insertRedundant(
        sequenceNumber: UInt16, timestamp: UInt32, payload: UnsafeRawBufferPointer, duration: Int, arrival: MediaTime
    ) -> JitterBufferInsertResult {
        guard phase != .idle, payload.count <= configuration.maxPayloadSize, duration > 0, duration <= configuration.clockRate else {
            return .outOfRange
        }
        let seq = extend(sequenceNumber)
        let ts = extend(timestamp)
        guard seq < highestSeq, highestSeq - seq < Int64(slots.count) else { return .outOfRange }
        let slot = slots[index(seq)]
        if slot.seq == seq, slot.state != .empty {
            counters.redundantDuplicates += 1
            return .duplicate
        }
        let isLate: Bool
        switch phase {
        case .playing: isLate = seq < nextSeq || ts + Int64(duration) <= playTs
        case .buffering, .idle: isLate = false
        }
        if isLate {
            counters.redundantLate += 1
            return .late
        }
        store(seq: seq, ts: ts, marker: false, payload: payload, duration: duration, arrival: arrival, origin: .redundancy)
        return .accepted
    }

    /// Whether the frame of the packet before `sequenceNumber` is still missing and may yet be
    /// played: not buffered, and its turn has not passed. FEC for it is then of use.
    package func awaitsFrame(before sequenceNumber: UInt16) -> Bool {
        guard phase != .idle else { return false }
        let seq = extend(sequenceNumber &- 1)
        let slot = slots[index(seq)]
        if slot.seq == seq, slot.state != .empty { return false }
        if phase == .playing, seq < nextSeq { return false }
        return seq > highestSeq - Int64(slots.count)
    }

    /// Extends a 16-bit sequence number to the 64-bit value nearest the highest one seen.
    func extend(_ seq: UInt16) -> Int64 {
        SequenceNumberUnwrapper.extend(seq, near: highestSeq)
    }

    /// Extends a 32-bit timestamp to the 64-bit value nearest that of the highest packet.
    func extend(_ ts: UInt32) -> Int64 {
        TimestampUnwrapper.extend(ts, near: highestTs)
    }

    /// Begins a new stream at this packet: extended numbers start one wrap up so that reordered
    /// predecessors stay positive.
    mutating func startStream(sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        clearStream()
        self.ssrc = ssrc
        highestSeq = 0x1_0000 + Int64(sequenceNumber)
        highestTs = 0x1_0000_0000 + Int64(timestamp)
        baseTs = highestTs
        headSeq = highestSeq
        nextSeq = highestSeq
        playTs = highestTs
        phase = .buffering
    }

    /// Flushes the buffer and restarts it with this packet.
    mutating func resynchronize(
        _ sequenceNumber: UInt16, _ timestamp: UInt32, _ ssrc: UInt32, _ marker: Bool,
        _ payload: UnsafeRawBufferPointer, _ duration: Int, _ arrival: MediaTime
    ) -> JitterBufferInsertResult {
        counters.resyncs += 1
        counters.discarded += bufferedCount
        startStream(sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc)
        store(seq: highestSeq, ts: highestTs, marker: marker, payload: payload, duration: duration, arrival: arrival)
        recordDelay(ts: highestTs, arrival: arrival)
        return .resynchronized
    }

    /// Feeds the delay window and the RFC 3550 interarrival jitter estimate.
    mutating func recordDelay(ts: Int64, arrival: MediaTime) {
        let transit = arrival.nanoseconds - sendNs(ts)
        window.add(transit)
        if let last = lastTransit {
            let d = Double(abs(transit - last))
            jitterNs += (d - jitterNs) / 16
        }
        lastTransit = transit
    }

    /// Discards the oldest packets when `seq` would not fit in the slot ring ahead of playout.
    mutating func makeRoom(for seq: Int64, ts: Int64) {
        let base = phase == .playing ? nextSeq : min(headSeq, seq)
        guard seq - base >= Int64(slots.count) else { return }
        let newBase = seq - Int64(slots.count) + 1
        var lowest: Int64?
        for i in slots.indices where slots[i].state == .buffered {
            if slots[i].seq < newBase {
                slots[i].state = .consumed
                bufferedCount -= 1
                counters.discarded += 1
            } else if let l = lowest, l <= slots[i].seq {
                continue
            } else {
                lowest = slots[i].seq
            }
        }
        let first = lowest ?? seq
        if phase == .playing {
            nextSeq = first
            playTs = max(playTs, first == seq ? ts : slots[index(first)].ts)
            underrunUnits = 0
        } else {
            headSeq = first
        }
    }

    /// Copies the payload into the slot for `seq` and marks it buffered.
    mutating func store(
        seq: Int64, ts: Int64, marker: Bool, payload: UnsafeRawBufferPointer, duration: Int, arrival: MediaTime,
        origin: Origin = .packet
    ) {
        let i = index(seq)
        if slots[i].state == .buffered {
            // Only reachable if the ring invariant broke; never leave a count behind.
            bufferedCount -= 1
            counters.discarded += 1
        }
        let offset = i * configuration.maxPayloadSize
        if let src = payload.baseAddress, payload.count > 0 {
            storage.withUnsafeMutableBytes { dst in
                guard let base = dst.baseAddress else { return }
                (base + offset).copyMemory(from: src, byteCount: payload.count)
            }
        }
        slots[i] = Slot(
            seq: seq, ts: ts, duration: duration, length: payload.count, marker: marker, state: .buffered, origin: origin,
            arrival: arrival)
        bufferedCount += 1
        if seq > highestSeq {
            highestSeq = seq
            highestTs = ts
        }
        if phase == .buffering, seq < headSeq { headSeq = seq }
    }
}
