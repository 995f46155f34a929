import VoiceRTP
import VoiceMedia
import VoiceMediaTypes

extension FuzzHarness {
    static let media: [FuzzHarness] = [
        FuzzHarness(name: "rtp", summary: "an RTP packet: view, header extension elements, owned copy round trip") { bytes in
            bytes.withUnsafeBytes { raw in
                guard let view = try? RTPPacketView(parsing: raw) else { return }
                precondition(view.payload.count <= raw.count, "the payload lies inside the packet")
                if let profile = view.extensionProfile, let data = view.extensionData {
                    _ = try? RTPHeaderExtension(profile: profile, data: Array(data)).elements()
                }
                if let packet = try? RTPPacket(parsing: raw), let again = try? packet.serialized() {
                    precondition((try? RTPPacket(parsing: again)) == packet, "an RTP packet round-trips")
                }
            }
        },
        FuzzHarness(name: "rtcp", summary: "a compound RTCP packet, strict and lenient") { bytes in
            bytes.withUnsafeBytes { raw in
                if let compound = try? RTCPCompoundPacket(parsing: raw, requireReportFirst: false), let again = try? compound.serialized() {
                    let reparsed = try? RTCPCompoundPacket(parsing: again, requireReportFirst: false)
                    // Extended reports come back as they were read.
                    for (index, packet) in compound.packets.enumerated() {
                        guard case .extendedReport = packet else { continue }
                        precondition(reparsed?.packets[index] == packet, "an XR packet survives writing and reading back")
                    }
                }
                _ = try? RTCPCompoundPacket(parsing: raw)
            }
        },
        FuzzHarness(name: "red", summary: "an RFC 2198 redundant-audio payload: blocks, the receiver's filter, write and read back") { bytes in
            bytes.withUnsafeBytes { raw in
                guard let view = try? REDPayloadView(parsing: raw) else { return }
                var blocks: [REDPayloadView.Block] = []
                for block in view.redundant {
                    precondition(block.data.count <= raw.count, "a block lies inside the payload")
                    blocks.append(block)
                }
                precondition(blocks.count == view.redundantCount)
                var filter = REDBlockFilter()
                filter.playable(view, timestamp: 0x1234_5678, codecType: 111, redType: 63) { block, _, _ in
                    precondition(block.data.count <= raw.count)
                }
                var out = [UInt8](repeating: 0, count: raw.count)
                let written = blocks.withUnsafeBufferPointer { list in
                    out.withUnsafeMutableBytes { try? REDPayloadView.write(primary: view.primary, redundant: list, into: $0) }
                }
                guard let written else { return }
                precondition(written == raw.count, "a payload read and written again is as long")
                precondition(out == bytes, "and the same bytes")
            }
        },
        FuzzHarness(name: "telephone-event", summary: "an RFC 4733 event payload") { bytes in
            bytes.withUnsafeBytes { raw in _ = try? TelephoneEvent(parsing: raw) }
        },
        FuzzHarness(name: "srtp", summary: "SRTP and SRTCP unprotect with known keys (what a peer or a forger sends)") { bytes in
            guard let session = srtpSession else { return }
            var buffer = bytes + [UInt8](repeating: 0, count: SRTPSession.maxTrailerLength)
            buffer.withUnsafeMutableBytes { raw in
                if let rtp = try? session.unprotectRTP(raw, length: bytes.count) { precondition(rtp <= bytes.count) }
            }
            buffer = bytes + [UInt8](repeating: 0, count: SRTPSession.maxTrailerLength)
            buffer.withUnsafeMutableBytes { raw in
                if let rtcp = try? session.unprotectRTCP(raw, length: bytes.count) { precondition(rtcp <= bytes.count) }
            }
        },
        FuzzHarness(name: "sdes", summary: "an SDP a=crypto attribute value") { bytes in
            _ = try? SDESCryptoAttribute(parsing: String(decoding: bytes, as: UTF8.self))
        },
        FuzzHarness(name: "wav", summary: "a WAV file, finished and unfinished") { bytes in
            bytes.withUnsafeBytes { raw in
                _ = try? WAVFile(parsing: raw)
                _ = try? WAVFile(parsing: raw, unfinished: true)
            }
        },
    ]

    /// Fixed keys, so an input can carry a valid authentication tag (the seed corpus has some).
    nonisolated(unsafe) static let srtpSession: SRTPSession? = {  // libFuzzer runs one input at a time
        let key = [UInt8](repeating: 0x2B, count: 16), salt = [UInt8](repeating: 0x5C, count: 14)
        guard let material = try? SRTPKeyMaterial(suite: .aesCM128HmacSHA1_80, masterKey: key, masterSalt: salt) else { return nil }
        return try? SRTPSession(outbound: material, inbound: material, configuration: .init(allowsRepeatedTransmission: true))
    }()
}
