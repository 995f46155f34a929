import VoiceSupport

/// The frames an Opus stream last sent, kept for RFC 2198 redundancy: two slots of the
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
        while blocks < redPolicy.depth, let (_, entry) = redHistory.entry(age: blocks) {
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

    /// The most payload bytes one packet may carry under the peer's Opus bitrate cap (its
    /// `maxaveragebitrate`, already in the settings), over one frame.
    private var redByteBudget: Int {
        guard case .opus(let settings) = configuration.codec else { return Int.max }
        return settings.maxAverageBitrate * configuration.ptime / 8_000
    }

    /// The peer's loss report, for the RED policy.
    mutating func adaptRED(remoteLoss: Double) {
        guard configuration.redPayloadType != nil else { return }
        redPolicy.reportReceived(fractionLost: remoteLoss)
    }
}
