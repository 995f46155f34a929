import VoiceBytes
import VoiceSupport
/// One RFC 4733 telephone-event payload block (§2.3): event, end bit, volume, duration.
///
/// ```
///  0                   1                   2                   3
/// |     event     |E|R| volume    |          duration             |
/// ```
package struct TelephoneEvent: Hashable, Sendable {
    /// The event code (0-15 are DTMF digits, §3.2).
    package var event: UInt8
    /// The E bit: set in the final packets of an event.
    package var isEnd: Bool
    /// Power level in -dBm0, 0-63 (DTMF events carry it; others send 0).
    package var volume: UInt8
    /// Duration so far, in RTP timestamp units, measured from the event's timestamp.
    package var duration: UInt16

    /// Creates an event block.
    package init(event: UInt8, isEnd: Bool = false, volume: UInt8 = 10, duration: UInt16) {
        self.event = event
        self.isEnd = isEnd
        self.volume = volume
        self.duration = duration
    }

    /// Encoded size of a block.
    package static let encodedLength = 4

    /// Parses the first event block of a payload (the R bit is ignored, as §2.3 requires).
    ///
    /// - Throws: ``TelephoneEventError/truncated`` if fewer than 4 bytes are given.
    package init(parsing bytes: UnsafeRawBufferPointer) throws(TelephoneEventError) {
        var reader = ByteReader(bytes)
        do throws(ByteReader.Error) {
            event = try reader.readUInt8()
            let flags = try reader.readUInt8()
            isEnd = flags & 0x80 != 0
            volume = flags & 0x3F
            duration = try reader.readUInt16()
        } catch {
            throw .truncated
        }
    }

    /// Parses the first event block of an array or slice.
    ///
    /// - Throws: ``TelephoneEventError/truncated`` if fewer than 4 bytes are given.
    package init(parsing bytes: some Collection<UInt8>) throws(TelephoneEventError) {
        let copy = Array(bytes)
        self = try copy.withUnsafeBytes { raw in
            Result { () throws(TelephoneEventError) in try TelephoneEvent(parsing: raw) }
        }.get()
    }

    /// Writes the 4-byte block into `buffer` without allocating; returns 4. Real-time safe.
    ///
    /// - Throws: ``TelephoneEventError/volumeOutOfRange`` or ``TelephoneEventError/bufferTooSmall``.
    @discardableResult
    package func write(into buffer: UnsafeMutableRawBufferPointer) throws(TelephoneEventError) -> Int {
        guard volume <= 63 else { throw .volumeOutOfRange }
        var writer = ByteWriter(buffer)
        do throws(ByteWriter.Error) {
            try writer.write(event)
            try writer.write((isEnd ? 0x80 : 0) | volume)
            try writer.write(duration)
        } catch {
            throw .bufferTooSmall
        }
        return writer.offset
    }

    /// The 4-byte block as an array.
    ///
    /// - Throws: ``TelephoneEventError/volumeOutOfRange``.
    package func serialized() throws(TelephoneEventError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.encodedLength)
        _ = try bytes.withUnsafeMutableBytes { raw in
            Result { () throws(TelephoneEventError) in try write(into: raw) }
        }.get()
        return bytes
    }
}
