import VoiceSupport

/// The frames an Opus stream last sent, kept for RFC 2198 redundancy: a slot per frame of the deepest policy in the
/// stream's preallocated history buffer, each with the frame's RTP timestamp and length.
struct REDHistory: Sendable {
    /// The longest block RED can carry (its length field has 10 bits).
    static let slotSize = 1_023
    static let slots = REDSendPolicy.maximumDepth

    struct Entry: Sendable, Equatable {
        var timestamp: UInt32
        var length: Int
    }
    /// By slot; `newest` is the slot written last.
    private(set) var entries: [Entry?] = Array(repeating: nil, count: REDHistory.slots)
    private(set) var newest = REDHistory.slots - 1

    /// The slot `age` frames back (0: the newest), if one was kept.
    func entry(age: Int) -> (slot: Int, entry: Entry)? {
        guard age < Self.slots else { return nil }
        let slot = (newest - age + Self.slots) % Self.slots
        return entries[slot].map { (slot, $0) }
    }

    /// Takes the slot of the oldest entry for a new frame; the caller copies its bytes there.
    mutating func record(timestamp: UInt32, length: Int) -> Int? {
        guard length > 0, length <= Self.slotSize else { return nil }
        newest = (newest + 1) % Self.slots
        entries[newest] = Entry(timestamp: timestamp, length: length)
        return newest
    }

    mutating func removeAll() {
        for i in entries.indices { entries[i] = nil }
    }
}

extension RTPStream {
    /// Wraps the Opus packet in the send buffer (its header, then `payloadLength` bytes) in RED
    /// when the policy repeats frames: the last `depth` frames sent go before it as redundant
    /// blocks, oldest first, and the packet takes the RED payload type. A block goes only if
    /// its offset fits 14 bits and the packet stays within the peer's bitrate cap (a frame's
    /// share of `maxaveragebitrate`) and the buffer. The frame is kept for the next packets
    /// either way. Returns the payload length now in the buffer.
    mutating func wrapInRED(headerLength: Int, payloadLength: Int, redType: UInt8) -> Int {
        var blocks = 0
        var blockBytes = 0
        let budget = redByteBudget
        let room = buffers.send.count - trailerRoom - headerLength
        let depth = redDepthInUse
        while blocks < depth, let (_, entry) = redHistory.entry(age: blocks) {
            let offset = rtpTimestamp &- entry.timestamp
            let total = payloadLength + 1 + 4 * (blocks + 1) + blockBytes + entry.length
            guard offset > 0, offset < 1 << 14, total <= budget, total <= room else { break }
            blocks += 1
            blockBytes += entry.length
        }
        let payloadStart = headerLength
        guard let base = buffers.send.baseAddress, let history = buffers.redHistory.baseAddress else { return payloadLength }
        var length = payloadLength
        if blocks > 0 {
            let shift = 1 + 4 * blocks + blockBytes
            (base + payloadStart + shift).copyMemory(from: base + payloadStart, byteCount: payloadLength)
            var header = payloadStart
            var data = payloadStart + 4 * blocks + 1
            // Oldest first: ages blocks-1 … 0.
            for age in stride(from: blocks - 1, through: 0, by: -1) {
                guard let (slot, entry) = redHistory.entry(age: age) else { continue }
                REDPayloadView.storeHeader(
                    at: base + header, payloadType: configuration.payloadType, timestampOffset: rtpTimestamp &- entry.timestamp,
                    length: entry.length)
                header += 4
                (base + data).copyMemory(from: history + slot * REDHistory.slotSize, byteCount: entry.length)
                if configuration.codec.isOpus,
                    OpusSILKFlags(packet: UnsafeRawBufferPointer(start: history + slot * REDHistory.slotSize, count: entry.length))?.lbrr == true
                {
                    fecCopiesSent += 1
                }
                data += entry.length
            }
            buffers.send[header] = configuration.payloadType
            buffers.send[1] = (buffers.send[1] & 0x80) | redType
            length = payloadLength + shift
            redPacketsSent += 1
            redBlocksSent += UInt64(blocks)
        }
        // Keep this frame (now at the end of the payload) for the packets after it.
        if let slot = redHistory.record(timestamp: rtpTimestamp, length: payloadLength) {
            (history + slot * REDHistory.slotSize).copyMemory(from: base + payloadStart + length - payloadLength, byteCount: payloadLength)
        }
        return length
    }

    /// The most payload bytes one packet may carry under the peer's bandwidth limit: a frame's
    /// share, with a quarter more for the swing of variable bitrate around its average. No
    /// limit stated: none but the buffer (each frame is already within the peer's Opus cap).
    private var redByteBudget: Int {
        guard let cap = configuration.peerBandwidthLimit else { return Int.max }
        return cap * configuration.ptime / 8_000 * 5 / 4
    }

    /// The lowest bitrate a primary frame is squeezed to so that its copies fit a peer's bandwidth limit;
    /// below it a shallower depth is used (at a cap of 32 kbps, no RED at all).
    static let minimumPrimaryBitrate = 24_000

    /// How many frames back our packets repeat now: the policy's depth, made shallower while
    /// the primary's share of the peer's bandwidth limit would fall under ``minimumPrimaryBitrate``.
    var redDepthInUse: Int {
        guard let cap = configuration.peerBandwidthLimit else { return redPolicy.depth }
        var depth = redPolicy.depth
        while depth > 0, cap / (depth + 1) < Self.minimumPrimaryBitrate { depth -= 1 }
        return depth
    }

    /// The most the encoder may spend on a primary frame while RED is on under a peer's bandwidth
    /// limit: its share, the rest going to the copies. No limit or no RED: none here.
    var redPrimaryCeiling: Int {
        let depth = redDepthInUse
        guard depth > 0, let cap = configuration.peerBandwidthLimit else { return Int.max }
        return cap / (depth + 1)
    }

    /// The peer's loss report, for the RED policy; a new depth under a bandwidth limit re-applies the
    /// encoder's bitrate.
    mutating func adaptRED(remoteLoss: Double) {
        guard configuration.redPayloadType != nil else { return }
        let before = redDepthInUse
        redPolicy.reportReceived(fractionLost: remoteLoss)
        guard redDepthInUse != before, configuration.peerBandwidthLimit != nil else { return }
        reapplyBitrate()
    }

    /// Sets the encoder's bitrate again from the loss adaptation (or the settings), within the
    /// primary's share of a peer's bandwidth limit while RED is on.
    mutating func reapplyBitrate() {
        if let setting = lossAdaptation?.setting {
            apply(setting)
        } else if case .opus(let settings) = configuration.codec {
            apply(OpusLossAdaptation.Setting(fec: fecEnabled, lossHint: lossHint, bitrate: settings.bitrate))
        }
    }
}
