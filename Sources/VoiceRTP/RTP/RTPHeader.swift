import VoiceBytes
import VoiceSupport
/// The fields of an RTP header (RFC 3550 §5.1), as an owning value for building packets.
///
/// ``write(into:)`` validates and serializes it; the receive path reads headers through
/// ``RTPPacketView`` instead. For the common 12-byte header the send path uses
/// ``writeMinimal(marker:payloadType:sequenceNumber:timestamp:ssrc:into:)``.
package struct RTPHeader: Hashable, Sendable {
    /// The marker bit (first packet of a talkspurt for audio).
    package var marker: Bool
    /// The payload type, 0-127.
    package var payloadType: UInt8
    /// The 16-bit sequence number.
    package var sequenceNumber: UInt16
    /// The 32-bit media timestamp.
    package var timestamp: UInt32
    /// The synchronization source.
    package var ssrc: UInt32
    /// Contributing sources, at most 15.
    package var csrcs: [UInt32]
    /// The header extension, if any (sets the X bit).
    package var `extension`: RTPHeaderExtension?
    /// Padding bytes that follow the payload, including the count byte; 0 for none (P bit clear).
    package var padding: UInt8

    /// Creates a header.
    package init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], extension: RTPHeaderExtension? = nil, padding: UInt8 = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extension = `extension`
        self.padding = padding
    }

    /// Size of the fixed header without CSRCs or extension.
    package static let minimumLength = 12

    /// Bytes ``write(into:)`` produces (fixed header, CSRCs, extension; not padding).
    package var encodedLength: Int {
        Self.minimumLength + csrcs.count * 4 + (`extension`.map { 4 + $0.data.count } ?? 0)
    }

    /// Writes the header (not the payload or padding) at the writer's position.
    ///
    /// - Throws: ``RTPError/badPayloadType``, ``RTPError/badCSRCCount``,
    ///   ``RTPError/badExtensionLength`` for invalid fields; ``RTPError/bufferTooSmall``
    ///   if the writer is full (the writer may then hold a partial header).
    package func write(into writer: inout ByteWriter) throws(RTPError) {
        guard payloadType <= 0x7F else { throw .badPayloadType }
        guard csrcs.count <= 15 else { throw .badCSRCCount }
        if let ext = `extension` {
            guard ext.data.count % 4 == 0, ext.data.count / 4 <= Int(UInt16.max) else { throw .badExtensionLength }
        }
        var byte0: UInt8 = 2 << 6 | UInt8(csrcs.count)
        if padding > 0 { byte0 |= 0x20 }
        if `extension` != nil { byte0 |= 0x10 }
        do throws(ByteWriter.Error) {
            try writer.write(byte0)
            try writer.write((marker ? 0x80 : 0) | payloadType)
            try writer.write(sequenceNumber)
            try writer.write(timestamp)
            try writer.write(ssrc)
            for csrc in csrcs { try writer.write(csrc) }
            if let ext = `extension` {
                try writer.write(ext.profile)
                try writer.write(UInt16(ext.data.count / 4))
                try ext.data.withUnsafeBytes { raw in
                    Result { () throws(ByteWriter.Error) in try writer.write(bytes: raw) }
                }.get()
            }
        } catch {
            throw RTPError(error)
        }
    }

    /// Writes the ``padding`` bytes that follow the payload: zeros, then the count.
    ///
    /// - Throws: ``RTPError/bufferTooSmall`` if the writer is full.
    package func writePadding(into writer: inout ByteWriter) throws(RTPError) {
        guard padding > 0 else { return }
        do throws(ByteWriter.Error) {
            try writer.writeZeros(Int(padding) - 1)
            try writer.write(padding)
        } catch {
            throw RTPError(error)
        }
    }

    /// Writes a 12-byte header (no CSRCs, extension or padding) into `buffer` without allocating.
    ///
    /// Real-time safe. Returns the bytes written: 12, or 0 if `buffer` is shorter than 12
    /// bytes or `payloadType` exceeds 127.
    @inlinable package static func writeMinimal(
        marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        guard payloadType <= 0x7F, buffer.count >= minimumLength else { return 0 }
        var writer = ByteWriter(buffer)
        do {
            try writer.write(UInt8(0x80))
            try writer.write((marker ? 0x80 : 0) | payloadType)
            try writer.write(sequenceNumber)
            try writer.write(timestamp)
            try writer.write(ssrc)
        } catch {
            return 0
        }
        return writer.offset
    }
}
