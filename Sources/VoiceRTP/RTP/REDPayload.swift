import VoiceBytes
import VoiceSupport

/// Why an RFC 2198 redundant-audio payload could not be read or written.
package enum REDError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A block header or a block's data runs past the payload.
    case truncated
    /// More redundant blocks than ``REDPayloadView/maximumRedundantBlocks``.
    case tooManyBlocks
    /// A block's timestamp offset (14 bits) or length (10 bits), or a payload type (7 bits),
    /// does not fit its field.
    case unrepresentable
    /// The destination buffer is too small.
    case bufferTooSmall

    package var description: String {
        switch self {
        case .truncated: "RED payload: a block runs past the packet"
        case .tooManyBlocks: "RED payload: too many redundant blocks"
        case .unrepresentable: "RED payload: a block's offset, length or payload type does not fit its field"
        case .bufferTooSmall: "RED payload: destination buffer too small"
        }
    }
}

/// A zero-copy view of an RFC 2198 payload (the `red/48000/2` payload WebRTC wraps Opus in):
/// block headers, then each redundant block's data, oldest first as senders write them, then
/// the primary encoding.
///
/// ```
///  redundant block header (F = 1):
///  |F|   block PT  |  timestamp offset (14)   |  block length (10) |
///  last header (F = 0):
///  |0|   block PT  |
/// ```
///
/// Parsing checks the structure only: every header and block inside the payload, and at most
/// ``maximumRedundantBlocks``. What a receiver does with the blocks (an unknown payload type,
/// a RED block inside RED, offsets out of order) is its policy: ``REDBlockFilter``. The view
/// borrows the bytes it was parsed from and allocates nothing.
package struct REDPayloadView {
    /// One encoding in the payload.
    package struct Block {
        package var payloadType: UInt8
        /// How far before the packet's timestamp this block's timestamp lies (0 for the primary).
        package var timestampOffset: UInt32
        package var data: UnsafeRawBufferPointer

        package init(payloadType: UInt8, timestampOffset: UInt32, data: UnsafeRawBufferPointer) {
            self.payloadType = payloadType
            self.timestampOffset = timestampOffset
            self.data = data
        }
    }

    /// More than this is not a sender protecting audio (WebRTC sends one or two).
    package static let maximumRedundantBlocks = 8

    /// The primary encoding (timestamp offset 0).
    package let primary: Block
    /// How many redundant blocks precede it.
    package let redundantCount: Int
    private let headers: UnsafeRawBufferPointer
    private let blockData: UnsafeRawBufferPointer

    /// Parses `payload`, an RTP packet's payload whose type is the negotiated RED type.
    package init(parsing payload: UnsafeRawBufferPointer) throws(REDError) {
        var reader = ByteReader(payload)
        var count = 0
        var dataLength = 0
        var primaryType: UInt8?
        while primaryType == nil {
            guard let first = try? reader.readUInt8() else { throw .truncated }
            guard first & 0x80 != 0 else {
                primaryType = first & 0x7F
                break
            }
            guard count < Self.maximumRedundantBlocks else { throw .tooManyBlocks }
            guard let word = try? reader.readUInt16(), let last = try? reader.readUInt8() else { throw .truncated }
            dataLength += Int(word & 0x03) << 8 | Int(last)
            count += 1
        }
        let headerLength = reader.offset
        guard dataLength <= payload.count - headerLength else { throw .truncated }
        headers = UnsafeRawBufferPointer(rebasing: payload[0..<(headerLength - 1)])
        blockData = UnsafeRawBufferPointer(rebasing: payload[headerLength..<(headerLength + dataLength)])
        redundantCount = count
        primary = Block(
            payloadType: primaryType ?? 0, timestampOffset: 0,
            data: UnsafeRawBufferPointer(rebasing: payload[(headerLength + dataLength)...]))
    }

    /// The redundant blocks in the order they appear (oldest first, as senders write them).
    package var redundant: RedundantBlocks { RedundantBlocks(headers: headers, data: blockData) }

    /// The redundant blocks, walked from their headers without allocating.
    package struct RedundantBlocks: Sequence, IteratorProtocol {
        private var headers: ByteReader
        private var data: UnsafeRawBufferPointer
        private var dataOffset = 0

        init(headers: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) {
            self.headers = ByteReader(headers)
            self.data = data
        }

        package mutating func next() -> Block? {
            // The view checked every header and length, so these reads cannot fail.
            guard let first = try? headers.readUInt8(), let word = try? headers.readUInt16(), let last = try? headers.readUInt8() else {
                return nil
            }
            let offset = UInt32(word) >> 2
            let length = Int(word & 0x03) << 8 | Int(last)
            let block = Block(
                payloadType: first & 0x7F, timestampOffset: offset,
                data: UnsafeRawBufferPointer(rebasing: data[dataOffset..<(dataOffset + length)]))
            dataOffset += length
            return block
        }
    }

    /// Writes one redundant block's 4-byte header at `target` (F = 1); the caller checked that
    /// the type, offset and length fit their fields.
    static func storeHeader(at target: UnsafeMutableRawPointer, payloadType: UInt8, timestampOffset: UInt32, length: Int) {
        let word = timestampOffset << 10 | UInt32(length)
        target.storeBytes(of: 0x80 | payloadType, as: UInt8.self)
        target.storeBytes(of: UInt8(truncatingIfNeeded: word >> 16), toByteOffset: 1, as: UInt8.self)
        target.storeBytes(of: UInt8(truncatingIfNeeded: word >> 8), toByteOffset: 2, as: UInt8.self)
        target.storeBytes(of: UInt8(truncatingIfNeeded: word), toByteOffset: 3, as: UInt8.self)
    }

    /// Writes a RED payload into `buffer`: `redundant` (oldest first), then `primary`. Returns
    /// the bytes written.
    package static func write(
        primary: Block, redundant: UnsafeBufferPointer<Block>, into buffer: UnsafeMutableRawBufferPointer
    ) throws(REDError) -> Int {
        guard redundant.count <= maximumRedundantBlocks else { throw .tooManyBlocks }
        guard primary.payloadType < 128 else { throw .unrepresentable }
        var total = 1 + primary.data.count
        for block in redundant {
            guard block.payloadType < 128, block.timestampOffset < 1 << 14, block.data.count < 1 << 10 else { throw .unrepresentable }
            total += 4 + block.data.count
        }
        guard total <= buffer.count, let base = buffer.baseAddress else { throw .bufferTooSmall }
        var at = 0
        for block in redundant {
            storeHeader(at: base + at, payloadType: block.payloadType, timestampOffset: block.timestampOffset, length: block.data.count)
            at += 4
        }
        base.storeBytes(of: primary.payloadType, toByteOffset: at, as: UInt8.self)
        at += 1
        for block in redundant {
            if let source = block.data.baseAddress { (base + at).copyMemory(from: source, byteCount: block.data.count) }
            at += block.data.count
        }
        if let source = primary.data.baseAddress { (base + at).copyMemory(from: source, byteCount: primary.data.count) }
        return at + primary.data.count
    }
}

/// Which of a RED packet's blocks a receiver may play: an audio stream's policy over
/// ``REDPayloadView``. A block is used only when it carries the codec the RED type wraps, is
/// not RED again, lies before the primary, and is newer than the block before it (senders
/// write the oldest first). Whatever else arrives is counted and left out; the packet's other
/// blocks still play.
package struct REDBlockFilter: Sendable {
    /// Blocks left out, by reason.
    package private(set) var unknownType: UInt64 = 0
    package private(set) var nested: UInt64 = 0
    package private(set) var outOfOrder: UInt64 = 0

    package init() {}

    /// The blocks of `view` to play, each with its own timestamp: the primary first (unless
    /// it is not playable itself), so a jitter buffer knows the newest frame before it fills
    /// the gaps behind it, then the redundant blocks, oldest first. `body` gets each one, and
    /// whether it is the primary.
    package mutating func playable(
        _ view: REDPayloadView, timestamp: UInt32, codecType: UInt8, redType: UInt8,
        _ body: (_ block: REDPayloadView.Block, _ timestamp: UInt32, _ isPrimary: Bool) -> Void
    ) {
        if accepts(view.primary.payloadType, codecType: codecType, redType: redType) { body(view.primary, timestamp, true) }
        var previousOffset: UInt32?
        for block in view.redundant {
            guard accepts(block.payloadType, codecType: codecType, redType: redType) else { continue }
            // Oldest first: each offset smaller than the last; 0 would be the primary's own time.
            if block.timestampOffset == 0 || previousOffset.map({ block.timestampOffset >= $0 }) ?? false {
                outOfOrder += 1
                continue
            }
            previousOffset = block.timestampOffset
            body(block, timestamp &- block.timestampOffset, false)
        }
    }

    private mutating func accepts(_ type: UInt8, codecType: UInt8, redType: UInt8) -> Bool {
        if type == redType {
            nested += 1
            return false
        }
        if type != codecType {
            unknownType += 1
            return false
        }
        return true
    }
}
