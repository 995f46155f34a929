import VoiceBytes
import VoiceSupport
/// A zero-copy, allocation-free view of one RTP packet (RFC 3550 §5.1) in borrowed bytes.
///
/// Parsing validates the version, the CSRC list, the extension length and the padding count,
/// and rejects RTCP SR/RR/SDES/BYE/APP packets that arrive on an rtcp-mux port. The view
/// borrows the buffer it was parsed from and must not outlive it. Use it on the receive path;
/// use ``RTPPacket`` where an owning copy is wanted.
package struct RTPPacketView {
    /// The raw first header byte (V, P, X, CC).
    @usableFromInline let byte0: UInt8
    /// The raw second header byte (M, PT).
    @usableFromInline let byte1: UInt8
    /// The 16-bit sequence number.
    package let sequenceNumber: UInt16
    /// The 32-bit media timestamp.
    package let timestamp: UInt32
    /// The synchronization source.
    package let ssrc: UInt32
    @usableFromInline let csrcBytes: UnsafeRawBufferPointer
    /// The extension's profile word, or nil when the X bit is clear.
    package let extensionProfile: UInt16?
    /// The extension data (after the profile/length word), or nil when the X bit is clear.
    package let extensionData: UnsafeRawBufferPointer?
    /// The payload, excluding padding.
    package let payload: UnsafeRawBufferPointer
    /// Padding bytes at the end of the packet, including the count byte; 0 when the P bit is clear.
    package let paddingLength: Int

    /// Parses the packet in `bytes`.
    ///
    /// - Throws: ``RTPError`` describing the first inconsistency found.
    package init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        var reader = ByteReader(bytes)
        do throws(ByteReader.Error) {
            byte0 = try reader.readUInt8()
            byte1 = try reader.readUInt8()
            sequenceNumber = try reader.readUInt16()
            timestamp = try reader.readUInt32()
            ssrc = try reader.readUInt32()
        } catch {
            throw RTPError(error)
        }
        guard byte0 >> 6 == 2 else { throw .badVersion }
        guard !(200...204).contains(byte1) else { throw .badPayloadType }

        let csrcCount = Int(byte0 & 0x0F)
        do throws(ByteReader.Error) {
            csrcBytes = try reader.readBytes(csrcCount * 4)
        } catch {
            throw .badCSRCCount
        }

        if byte0 & 0x10 != 0 {
            let profile: UInt16
            let words: UInt16
            do throws(ByteReader.Error) {
                profile = try reader.readUInt16()
                words = try reader.readUInt16()
            } catch {
                throw RTPError(error)
            }
            do throws(ByteReader.Error) {
                extensionData = try reader.readBytes(Int(words) * 4)
            } catch {
                throw .badExtensionLength
            }
            extensionProfile = profile
        } else {
            extensionProfile = nil
            extensionData = nil
        }

        var body = reader.readRemaining()
        if byte0 & 0x20 != 0 {
            var tail = ByteReader(body)
            let count: Int
            do throws(ByteReader.Error) {
                try tail.skip(body.count - 1)
                count = Int(try tail.readUInt8())
            } catch {
                throw .badPadding
            }
            guard count >= 1, count <= body.count else { throw .badPadding }
            var payloadReader = ByteReader(body)
            do throws(ByteReader.Error) {
                body = try payloadReader.readBytes(body.count - count)
            } catch {
                throw .badPadding
            }
            paddingLength = count
        } else {
            paddingLength = 0
        }
        payload = body
    }

    /// The RTP version; always 2 for a parsed view.
    @inlinable package var version: UInt8 { byte0 >> 6 }
    /// True when the P bit is set.
    @inlinable package var hasPadding: Bool { byte0 & 0x20 != 0 }
    /// True when the X bit is set.
    @inlinable package var hasExtension: Bool { byte0 & 0x10 != 0 }
    /// The marker bit.
    @inlinable package var marker: Bool { byte1 & 0x80 != 0 }
    /// The 7-bit payload type.
    @inlinable package var payloadType: UInt8 { byte1 & 0x7F }
    /// Number of contributing sources (0-15).
    @inlinable package var csrcCount: Int { Int(byte0 & 0x0F) }

    /// The contributing source at `index`; `index` must be below ``csrcCount``.
    @inlinable package func csrc(at index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        var reader = ByteReader(csrcBytes)
        do {
            try reader.skip(index * 4)
            return try reader.readUInt32()
        } catch {
            preconditionFailure("CSRC list shorter than its count")
        }
    }

    /// An allocation-free walk over the RFC 8285 elements, or nil when there is no extension
    /// or its profile is not an RFC 8285 form.
    @inlinable package var extensionElements: RTPHeaderExtensionElementReader? {
        guard let profile = extensionProfile, let data = extensionData,
            let form = RTPHeaderExtensionElement.Form(profile: profile)
        else { return nil }
        return RTPHeaderExtensionElementReader(data: data, form: form)
    }

    /// The header fields as an owning ``RTPHeader`` (allocates for CSRCs and extension).
    package var header: RTPHeader {
        var csrcs: [UInt32] = []
        csrcs.reserveCapacity(csrcCount)
        for i in 0..<csrcCount { csrcs.append(csrc(at: i)) }
        var ext: RTPHeaderExtension?
        if let profile = extensionProfile, let data = extensionData {
            ext = RTPHeaderExtension(profile: profile, data: Array(data))
        }
        return RTPHeader(
            marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber,
            timestamp: timestamp, ssrc: ssrc, csrcs: csrcs, extension: ext,
            padding: UInt8(truncatingIfNeeded: paddingLength))
    }

    /// True when `bytes` hold an RTCP packet rather than RTP on an rtcp-mux port (RFC 5761 §4):
    /// the second byte (RTP's M+PT, RTCP's packet type) is in 192-223.
    @inlinable package static func isRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var reader = ByteReader(bytes)
        guard let first = try? reader.readUInt8(), first >> 6 == 2,
            let second = try? reader.readUInt8()
        else { return false }
        return (192...223).contains(second)
    }
}

@available(*, unavailable)
extension RTPPacketView: Sendable {}
