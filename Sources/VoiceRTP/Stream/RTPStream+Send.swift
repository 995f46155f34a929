import VoiceSupport

extension RTPStream {
    /// A captured frame is ready: one ptime of 48 kHz mono samples (``samplesPerFrame``),
    /// silenced in place when muted or on hold. It goes out as an RTP packet (or, while a digit
    /// plays, a telephone-event packet stands in for it), protected, to the remote address; a
    /// frame with nowhere to go only moves the RTP clock on.
    package mutating func send<Output: RTPStreamOutput>(
        frame: UnsafeMutableBufferPointer<Int16>, at now: MediaTime, output: inout Output
    ) {
        precondition(frame.count == frameSamples48k, "a frame is one ptime of 48 kHz samples")
        if isMuted || isOnHold { frame.update(repeating: 0) }
        inputLevel = AudioFrameLevel.peak(UnsafeBufferPointer(frame))
        defer { rtpTimestamp &+= UInt32(truncatingIfNeeded: frameRTPUnits) }
        guard let destination = remote?.rtp else { return }
        if sendTelephoneEventIfDue(destination: destination, now: now, output: &output) { return }
        let headerLength = writeHeader(level: AudioFrameLevel.dBov(UnsafeBufferPointer(frame)))
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffers.send[headerLength..<(buffers.send.count - trailerRoom)])
        let payloadLength: Int
        do throws(MediaCodecError) {
            payloadLength = try encoder.encode(UnsafeBufferPointer(frame), into: payloadArea)
        } catch {
            return
        }
        sendPayload(headerLength: headerLength, payloadLength: payloadLength, to: destination, now: now, output: &output)
    }

    /// A frame encoded elsewhere is ready: a conference bridge encoded its shared mix once for
    /// every listener whose stream has this stream's ``sharedEncodingKey``. It goes out as the
    /// stream's own packet (its SSRC, sequence, timestamp and protection), exactly as ``send(frame:at:output:)``
    /// would send it, telephone events and DTX included. Muted or on hold, silence is encoded
    /// here instead. `samples` must be one frame (``samplesPerFrame``), `peak` is the frame's
    /// peak sample (the input level) and `level` its RFC 6464 level. Returns false, sending nothing and leaving the timeline
    /// alone, when the frame does not fit this stream: the caller then sends its own.
    package mutating func send<Output: RTPStreamOutput>(
        encoded payload: UnsafeRawBufferPointer, samples: Int, peak: Int, level: UInt8, at now: MediaTime, output: inout Output
    ) -> Bool {
        guard samples == frameSamples48k else { return false }
        if isMuted || isOnHold {
            sendSilence(at: now, output: &output)
            return true
        }
        let headerRoom = RTPHeader.minimumLength + 8
        guard payload.count <= buffers.send.count - trailerRoom - headerRoom else { return false }
        inputLevel = peak
        defer { rtpTimestamp &+= UInt32(truncatingIfNeeded: frameRTPUnits) }
        guard let destination = remote?.rtp else { return true }
        if sendTelephoneEventIfDue(destination: destination, now: now, output: &output) { return true }
        let headerLength = writeHeader(level: level)
        if let source = payload.baseAddress, let target = buffers.send.baseAddress {
            (target + headerLength).copyMemory(from: source, byteCount: payload.count)
        }
        sendPayload(headerLength: headerLength, payloadLength: payload.count, to: destination, now: now, output: &output)
        return true
    }

    /// Writes the next packet's RTP header at the start of the send buffer, with the frame's
    /// RFC 6464 `level` in a one-byte header extension (RFC 8285) when the extension was
    /// negotiated; returns its length.
    private mutating func writeHeader(level: UInt8) -> Int {
        let length = RTPHeader.writeMinimal(
            marker: markerNext, payloadType: configuration.payloadType, sequenceNumber: sequenceNumber,
            timestamp: rtpTimestamp, ssrc: configuration.ssrc, into: buffers.send)
        guard let id = configuration.audioLevelExtensionID, (1...14).contains(id), length == RTPHeader.minimumLength else { return length }
        let packet = buffers.send
        packet[0] |= 0x10
        packet[length] = UInt8(RTPHeaderExtension.oneByteProfile >> 8)
        packet[length + 1] = UInt8(RTPHeaderExtension.oneByteProfile & 0xFF)
        packet[length + 2] = 0
        packet[length + 3] = 1
        packet[length + 4] = id << 4
        packet[length + 5] = (level <= AudioFrameLevel.voiceActivityLevel ? 0x80 : 0) | (level & 0x7F)
        packet[length + 6] = 0
        packet[length + 7] = 0
        return length + 8
    }

    /// Sends the packet whose header and payload are in the send buffer: Opus DTX frames are
    /// skipped (the next packet starts a talkspurt), the SILK flags feed the loss adaptation.
    private mutating func sendPayload<Output: RTPStreamOutput>(
        headerLength: Int, payloadLength: Int, to destination: SocketAddress, now: MediaTime, output: inout Output
    ) {
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffers.send[headerLength..<(headerLength + payloadLength)])
        if payloadLength <= 2, configuration.codec.isOpus {
            // Opus DTX: a packet of two bytes or less need not be sent; the next one starts a talkspurt.
            markerNext = true
            return
        }
        var carriesFEC = false
        if configuration.codec.isOpus, let flags = OpusSILKFlags(packet: UnsafeRawBufferPointer(payloadArea)) {
            carriesFEC = flags.lbrr
            if let change = lossAdaptation?.packetSent(flags) { apply(change) }
        }
        var length = payloadLength
        // What the RED counters were: a packet that is not sent counts for none of them.
        let redCounts = (redPacketsSent, redBlocksSent, fecCopiesSent)
        if let red = configuration.redPayloadType {
            length = wrapInRED(headerLength: headerLength, payloadLength: payloadLength, redType: red)
        }
        guard protectAndSend(packetLength: headerLength + length, payloadLength: length, to: destination, now: now, output: &output)
        else {
            (redPacketsSent, redBlocksSent, fecCopiesSent) = redCounts
            return
        }
        if carriesFEC { fecPacketsSent += 1 }
        markerNext = false
    }

    /// A silent frame is due (no capture device, or it is interrupted or stalled): the peer
    /// still gets media and RTCP, and the call's timeline goes on.
    package mutating func sendSilence<Output: RTPStreamOutput>(at now: MediaTime, output: inout Output) {
        let frame = UnsafeMutableBufferPointer(rebasing: buffers.frame[0..<frameSamples48k])
        frame.update(repeating: 0)
        send(frame: frame, at: now, output: &output)
    }

    /// Bytes kept free after a packet for the protection's trailer.
    var trailerRoom: Int { sendProtection?.maximumTrailerLength ?? 0 }

    /// Protects the RTP packet at the start of the send buffer (when protection is on), sends
    /// it and counts it, then moves to the next sequence number. Returns false, using no
    /// sequence number, when protection failed and nothing went out.
    mutating func protectAndSend<Output: RTPStreamOutput>(
        packetLength: Int, payloadLength: Int, to destination: SocketAddress, now: MediaTime, output: inout Output
    ) -> Bool {
        var length = packetLength
        if let protection = sendProtection {
            do throws(PacketProtectionError) {
                length = try protection.protect(rtp: buffers.send, length: length)
            } catch {
                return false
            }
        }
        if output.perform(.send(UnsafeRawBufferPointer(rebasing: buffers.send[0..<length]), to: destination, component: .rtp)) {
            packetsSent += 1
            octetsSent += UInt64(payloadLength)
            lastSendTime = now
        }
        sequenceNumber &+= 1
        return true
    }
}
