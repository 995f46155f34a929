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
        inputLevel = Self.peak(UnsafeBufferPointer(frame))
        defer { rtpTimestamp &+= UInt32(truncatingIfNeeded: frameRTPUnits) }
        guard let destination = remote?.rtp else { return }
        if sendTelephoneEventIfDue(destination: destination, now: now, output: &output) { return }
        let packet = buffers.send
        let headerLength = RTPHeader.writeMinimal(
            marker: markerNext, payloadType: configuration.payloadType, sequenceNumber: sequenceNumber,
            timestamp: rtpTimestamp, ssrc: configuration.ssrc, into: packet)
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: packet[headerLength..<(packet.count - trailerRoom)])
        let payloadLength: Int
        do throws(MediaCodecError) {
            payloadLength = try encoder.encode(UnsafeBufferPointer(frame), into: payloadArea)
        } catch {
            return
        }
        if payloadLength <= 2, configuration.codec.isOpus {
            // Opus DTX: a packet of two bytes or less need not be sent; the next one starts a talkspurt.
            markerNext = true
            return
        }
        if configuration.codec.isOpus,
            let flags = OpusSILKFlags(packet: UnsafeRawBufferPointer(rebasing: payloadArea[0..<payloadLength]))
        {
            if flags.lbrr { fecPacketsSent += 1 }
            if let change = lossAdaptation?.packetSent(flags) { apply(change) }
        }
        guard protectAndSend(packetLength: headerLength + payloadLength, payloadLength: payloadLength, to: destination, now: now, output: &output)
        else { return }
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
