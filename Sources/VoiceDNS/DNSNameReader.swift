import VoiceBytes

/// Reads domain names out of a DNS message (RFC 1035 §3.1, §4.1.4), following compression
/// pointers only backwards, so that no name can loop, and at most 255 bytes long.
struct DNSNameReader {
    let message: UnsafeRawBufferPointer

    /// The name starting at byte `start` of the message, lower-cased and without a trailing
    /// dot (empty for the root), and the offset just past it where it sits (past its first
    /// pointer when compressed). With `limit`, the name's own bytes must end by it (a name
    /// inside a record's data may not run past the data).
    func read(at start: Int, within limit: Int? = nil) throws(DNSError) -> (name: String, end: Int) {
        var labels: [String] = []
        var offset = start
        var end: Int?
        var length = 0
        var floor = start
        while true {
            guard offset >= 0, offset < message.count else { throw DNSError(.truncated, "a name runs past the message") }
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: message[offset...]))
            let head = Self.byte(&reader) ?? 0
            switch head & 0xC0 {
            case 0x00 where head == 0:
                let stop = end ?? offset + 1
                if let limit, stop > limit { throw DNSError(.malformed, "a name runs past its record") }
                return (labels.joined(separator: "."), stop)
            case 0x00:
                guard reader.remaining >= Int(head), let bytes = try? reader.readBytes(Int(head)) else {
                    throw DNSError(.truncated, "a label runs past the message")
                }
                guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ".") }) else {
                    throw DNSError(.malformed, "a label holds a byte a host name cannot")
                }
                length += Int(head) + 1
                guard length < 255 else { throw DNSError(.malformed, "a name longer than 255 bytes") }
                labels.append(String(decoding: bytes, as: UTF8.self).lowercased())
                offset += 1 + Int(head)
            case 0xC0:
                guard let low = Self.byte(&reader) else { throw DNSError(.truncated, "a pointer runs past the message") }
                let target = Int(head & 0x3F) << 8 | Int(low)
                if end == nil { end = offset + 2 }
                // Each pointer lands before every byte of the name read so far, so the walk
                // only ever moves back and ends.
                guard target < floor else { throw DNSError(.malformed, "a compression pointer that does not point back") }
                floor = target
                offset = target
            default:
                throw DNSError(.malformed, "an extended label type")
            }
        }
    }

    private static func byte(_ reader: inout ByteReader) -> UInt8? { try? reader.readUInt8() }
}
