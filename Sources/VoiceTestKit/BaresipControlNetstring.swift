/// Netstring framing (`<length>:<payload>,`, D. J. Bernstein's netstrings) as `ctrl_tcp` speaks it.
package enum BaresipControlNetstring {
    /// The largest payload accepted or produced; baresip's own replies are a few kilobytes.
    package static let maximumPayloadSize = 256 * 1024
    /// Digits in the longest length prefix ``maximumPayloadSize`` allows.
    static let maximumLengthDigits = String(maximumPayloadSize).count

    /// Frames `payload` as one netstring.
    /// - Throws: ``BaresipControlError/Kind/invalidArgument`` over ``maximumPayloadSize``.
    package static func encode(_ payload: [UInt8]) throws(BaresipControlError) -> [UInt8] {
        guard payload.count <= maximumPayloadSize else {
            throw BaresipControlError(.invalidArgument, "netstring payload of \(payload.count) bytes, over \(maximumPayloadSize)")
        }
        return Array("\(payload.count):".utf8) + payload + [UInt8(ascii: ",")]
    }

    /// Splits a byte stream into netstring payloads, however the stream is cut into reads.
    ///
    /// Append what the socket delivered, then call ``next()`` until it returns nil. After an
    /// error the stream cannot be resynchronised; the decoder keeps failing.
    package struct Decoder: Sendable {
        private var buffer: [UInt8] = []
        private var failure: BaresipControlError?

        /// An empty decoder.
        package init() {}

        /// Bytes not yet returned as a payload.
        package var bufferedByteCount: Int { buffer.count }

        /// Adds bytes received from the stream.
        package mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

        /// The next complete payload, or nil when more bytes are needed.
        /// - Throws: ``BaresipControlError/Kind/framing`` for a missing or non-digit length, a
        ///   leading zero, a length over the limit, or a missing trailing comma.
        package mutating func next() throws(BaresipControlError) -> [UInt8]? {
            if let failure { throw failure }
            var reader = Reader(buffer)
            do {
                guard let payload = try reader.frame() else { return nil }
                buffer.removeFirst(reader.position)
                return payload
            } catch {
                failure = error
                throw error
            }
        }

        /// A cursor over the buffered bytes; it only moves forward.
        private struct Reader {
            let bytes: [UInt8]
            private(set) var position = 0

            init(_ bytes: [UInt8]) { self.bytes = bytes }

            /// Reads `<digits>:<payload>,`; nil when the frame is not complete yet.
            mutating func frame() throws(BaresipControlError) -> [UInt8]? {
                var length = 0
                var digits = 0
                while true {
                    guard let byte = readByte() else { return nil }
                    if byte == UInt8(ascii: ":") { break }
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                        throw BaresipControlError(.framing, "netstring length holds byte \(byte)")
                    }
                    if digits == 1 && length == 0 {
                        throw BaresipControlError(.framing, "netstring length has a leading zero")
                    }
                    digits += 1
                    length = length * 10 + Int(byte - UInt8(ascii: "0"))
                    guard digits <= BaresipControlNetstring.maximumLengthDigits, length <= BaresipControlNetstring.maximumPayloadSize else {
                        throw BaresipControlError(.framing, "netstring length over \(BaresipControlNetstring.maximumPayloadSize)")
                    }
                }
                guard digits > 0 else { throw BaresipControlError(.framing, "netstring without a length") }
                guard let payload = read(count: length) else { return nil }
                guard let comma = readByte() else { return nil }
                guard comma == UInt8(ascii: ",") else {
                    throw BaresipControlError(.framing, "netstring of \(length) bytes not ended by a comma (byte \(comma))")
                }
                return payload
            }

            private mutating func readByte() -> UInt8? {
                guard position < bytes.count else { return nil }
                defer { position += 1 }
                return bytes[position]
            }

            private mutating func read(count: Int) -> [UInt8]? {
                guard bytes.count - position >= count else { return nil }
                defer { position += count }
                return Array(bytes[position..<(position + count)])
            }
        }
    }
}
