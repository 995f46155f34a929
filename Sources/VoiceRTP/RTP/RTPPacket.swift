import VoiceBytes
import VoiceSupport
/// An owning RTP packet: header plus payload bytes. For tests and non-real-time paths;
/// the media path uses ``RTPPacketView`` and ``RTPHeader/writeMinimal(marker:payloadType:sequenceNumber:timestamp:ssrc:into:)``.
package struct RTPPacket: Hashable, Sendable {
    /// The header, including CSRCs, extension and padding length.
    package var header: RTPHeader
    /// The payload, excluding padding.
    package var payload: [UInt8]

    /// Creates a packet.
    package init(header: RTPHeader, payload: [UInt8]) {
        self.header = header
        self.payload = payload
    }

    /// Parses and copies a packet from raw bytes.
    ///
    /// - Throws: ``RTPError`` as ``RTPPacketView/init(parsing:)`` does.
    package init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let view = try RTPPacketView(parsing: bytes)
        self.init(header: view.header, payload: Array(view.payload))
    }

    /// Parses and copies a packet from an array or slice.
    ///
    /// - Throws: ``RTPError`` as ``RTPPacketView/init(parsing:)`` does.
    package init(parsing bytes: some Collection<UInt8>) throws(RTPError) {
        let copy = Array(bytes)
        self = try copy.withUnsafeBytes { raw in
            Result { () throws(RTPError) in try RTPPacket(parsing: raw) }
        }.get()
    }

    /// Total encoded size: header, payload and padding.
    package var encodedLength: Int { header.encodedLength + payload.count + Int(header.padding) }

    /// Serializes the packet.
    ///
    /// - Throws: ``RTPError`` if a header field is invalid.
    package func serialized() throws(RTPError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: encodedLength)
        try bytes.withUnsafeMutableBytes { raw in
            Result { () throws(RTPError) in
                var writer = ByteWriter(raw)
                try header.write(into: &writer)
                try payload.withUnsafeBytes { p in
                    Result { () throws(ByteWriter.Error) in try writer.write(bytes: p) }
                }.mapError(RTPError.init).get()
                try header.writePadding(into: &writer)
            }
        }.get()
        return bytes
    }
}
