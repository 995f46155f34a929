import VoiceSupport

extension RTPStream {
    /// A datagram arrived at the stream's port: `datagram[0..<length]`, which the stream
    /// unprotects in place (`datagram` is the driver's receive buffer). RTP and RTCP are told
    /// apart as RFC 5761 says; anything else is counted as malformed and dropped (the driver
    /// sends STUN and DTLS elsewhere first, ``MediaDatagramKind``).
    package mutating func receive<Output: RTPStreamOutput>(
        _ datagram: UnsafeMutableRawBufferPointer, length: Int, from source: SocketAddress, at arrival: MediaTime,
        output: inout Output
    ) {
        let bytes = UnsafeRawBufferPointer(rebasing: datagram[0..<min(length, datagram.count)])
        guard MediaDatagramKind(bytes) == .rtpOrRTCP else {
            malformedPackets += 1
            return
        }
        if RTPPacketView.isRTCP(bytes) {
            receiveRTCP(datagram, length: bytes.count, from: source, at: arrival, output: &output)
        } else {
            receiveRTP(datagram, length: bytes.count, from: source, at: arrival, output: &output)
        }
    }

    /// Unprotects, parses and buffers one RTP packet.
    mutating func receiveRTP<Output: RTPStreamOutput>(
        _ datagram: UnsafeMutableRawBufferPointer, length n: Int, from source: SocketAddress, at now: MediaTime,
        output: inout Output
    ) {
        var length = n
        if let protection = receiveProtection {
            do throws(PacketProtectionError) {
                length = try protection.unprotect(rtp: datagram, length: n)
            } catch {
                countProtectionFailure(error)
                return
            }
        }
        let view: RTPPacketView
        do throws(RTPError) {
            view = try RTPPacketView(parsing: UnsafeRawBufferPointer(rebasing: datagram[0..<length]))
        } catch {
            malformedPackets += 1
            return
        }
        let isTelephoneEvent = configuration.telephoneEventPayloadType.map { view.payloadType == $0 } ?? false
        let isRED = configuration.redPayloadType.map { view.payloadType == $0 } ?? false
        guard isTelephoneEvent || isRED || view.payloadType == configuration.payloadType else {
            malformedPackets += 1
            return
        }
        switch sourceGate.admit(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, arrival: now) {
        case .accept:
            break
        case .acceptNewSource:
            // Another sender (a PBX bridging a new leg) after the old one went quiet.
            receiverStats = RTPReceiverStatistics(clockRate: rtpClockRate)
            newestSequence = nil
        case .probation:
            probationPackets += 1
            return
        case .foreign:
            foreignSourcePackets += 1
            return
        }
        // Only the source's newest packet may move the stream: one sent before a move, and
        // delivered after packets sent since (reordering), must not move it back.
        let newest = newestSequence.map { RTPSerialNumber.isNewer(view.sequenceNumber, than: $0) } ?? true
        if newest {
            newestSequence = view.sequenceNumber
            followSource(source, rtcp: false)
        }
        // Events share the source's sequence numbers, so they count for RTP statistics too.
        packetsReceived += 1
        octetsReceived += UInt64(view.payload.count)
        lastPacketArrival = now
        remoteSSRC = view.ssrc
        _ = receiverStats.received(sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, arrivalTime: now)
        let level = configuration.audioLevelExtensionID.flatMap { Self.audioLevel(in: view, id: $0) }
        if newest, let level {
            receivedAudioLevel = level
            audioLevelsReceived &+= 1
        }
        if isTelephoneEvent {
            receiveTelephoneEvent(view, output: &output)
            return
        }
        if case .skipsAnnouncedSilence(let threshold) = receivedAudioDecoding {
            announcedSilence.received(level: level, threshold: threshold, at: now)
        }
        endTelephoneEvent(before: view.timestamp, output: &output)
        if isRED { return bufferRED(view, at: now) }
        if redDepthSeen.depth > 0, now - redDepthSeen.at > .seconds(2) {
            // The peer went back to plain packets: the delay needs no room for copies.
            redDepthSeen = (0, now)
            jitterBuffer.redundancyFrames = 0
        }
        let duration: Int
        do throws(MediaCodecError) {
            duration = try decoder.duration(of: view.payload)
        } catch {
            malformedPackets += 1
            return
        }
        receivedFrameUnits = duration
        countInBandFEC(view.payload, sequenceNumber: view.sequenceNumber)
        _ = jitterBuffer.insert(
            sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, ssrc: view.ssrc, marker: view.marker,
            payload: view.payload, duration: duration, arrival: now)
    }

    /// Counts a payload's in-band FEC (Opus LBRR, read from its SILK header) for the stats:
    /// needed when the packet before it is still missing.
    private mutating func countInBandFEC(_ payload: UnsafeRawBufferPointer, sequenceNumber: UInt16) {
        guard decoder.supportsFEC, OpusSILKFlags(packet: payload)?.lbrr == true else { return }
        inbound.receivedFEC(needed: jitterBuffer.awaitsFrame(before: sequenceNumber))
    }

    /// Keeps the jitter buffer's delay long enough for the peer's redundancy: the deepest
    /// block seen in the last two seconds, in frames (a sender whose blocks vary with its
    /// bitrate budget does not make the delay flap).
    private mutating func noteREDDepth(_ red: REDPayloadView, at now: MediaTime) {
        var deepest = 0
        for block in red.redundant where block.timestampOffset > 0 {
            deepest = max(deepest, Int(block.timestampOffset) / max(1, frameRTPUnits))
        }
        deepest = min(deepest, REDSendPolicy.maximumDepth)
        if deepest >= redDepthSeen.depth || now - redDepthSeen.at > .seconds(2) {
            redDepthSeen = (deepest, now)
        }
        jitterBuffer.redundancyFrames = redDepthSeen.depth
    }

    /// Buffers a RED packet's blocks (RFC 2198): its primary as the packet itself, then each
    /// redundant frame in the slot of the packet that first carried it, where that one is
    /// missing. A malformed payload is counted and dropped whole; blocks the filter refuses
    /// (another codec, RED again, out of order) are counted and left out.
    private mutating func bufferRED(_ view: RTPPacketView, at now: MediaTime) {
        let red: REDPayloadView
        do throws(REDError) {
            red = try REDPayloadView(parsing: view.payload)
        } catch {
            malformedPackets += 1
            return
        }
        redPacketsReceived += 1
        noteREDDepth(red, at: now)
        var filter = redFilter
        let decoder = self.decoder
        filter.playable(red, timestamp: view.timestamp, codecType: configuration.payloadType, redType: view.payloadType) {
            block, timestamp, isPrimary in
            guard let duration = try? decoder.duration(of: block.data) else {
                malformedPackets += 1
                return
            }
            if isPrimary {
                receivedFrameUnits = duration
                countInBandFEC(block.data, sequenceNumber: view.sequenceNumber)
                _ = jitterBuffer.insert(
                    sequenceNumber: view.sequenceNumber, timestamp: timestamp, ssrc: view.ssrc, marker: view.marker,
                    payload: block.data, duration: duration, arrival: now)
                return
            }
            // One frame per packet: the block's packet is as many packets back as frames.
            let offset = Int(block.timestampOffset)
            guard offset % duration == 0, offset / duration <= Int(UInt16.max) else {
                redBlocksUnplaced += 1
                return
            }
            let sequenceNumber = view.sequenceNumber &- UInt16(offset / duration)
            // NetEq counts a copy's own LBRR too: so do we.
            countInBandFEC(block.data, sequenceNumber: sequenceNumber)
            _ = jitterBuffer.insertRedundant(
                sequenceNumber: sequenceNumber, timestamp: timestamp, payload: block.data, duration: duration, arrival: now)
        }
        redFilter = filter
    }

    /// Symmetric RTP (RFC 4961): sends to where the peer's media comes from, once a packet from
    /// a new address has passed authentication and the source gate, so only the key holder
    /// can move our media (a peer that changed networks, or one behind a NAT whose SDP names a
    /// private address). Plain RTP proves nothing, so it never moves the stream.
    mutating func followSource(_ source: SocketAddress, rtcp: Bool) {
        guard receiveProtection != nil, source.length > 0, var current = remote, followsPeerAddress else { return }
        if rtcp {
            guard !configuration.rtcpMux, let old = current.rtcp, old != source else { return }
            current.rtcp = source
        } else {
            guard current.rtp != source else { return }
            if configuration.rtcpMux || current.rtcp == current.rtp { current.rtcp = source }
            current.rtp = source
        }
        remote = current
        remoteAddressSwitches += 1
    }

    mutating func countProtectionFailure(_ error: PacketProtectionError) {
        switch error {
        case .authentication: authenticationFailures += 1
        case .replay: replayFailures += 1
        case .invalid: malformedPackets += 1
        }
    }

    /// Reports an RFC 4733 event once: when its first end packet arrives or, when every end
    /// packet was lost (RFC 4733 §2.5.1.4), when the next event or later audio shows it over.
    mutating func receiveTelephoneEvent<Output: RTPStreamOutput>(_ view: RTPPacketView, output: inout Output) {
        guard let event = try? TelephoneEvent(parsing: view.payload) else {
            malformedPackets += 1
            return
        }
        switch receivedTelephoneEvent {
        case .reported(let timestamp) where timestamp == view.timestamp:
            return  // a repeated end packet, or a late one of the event reported
        case .playing(let timestamp, let code, let duration) where timestamp != view.timestamp:
            // Another event began: the one before ended with all its end packets lost.
            _ = output.perform(.report(.telephoneEvent(code: code, duration: Int(duration))))
        default:
            break
        }
        if event.isEnd {
            receivedTelephoneEvent = .reported(timestamp: view.timestamp)
            _ = output.perform(.report(.telephoneEvent(code: event.event, duration: Int(event.duration))))
        } else {
            receivedTelephoneEvent = .playing(timestamp: view.timestamp, code: event.event, duration: event.duration)
        }
    }

    /// Audio stamped `timestamp` arrived: an event still playing whose span it follows ended
    /// with all its end packets lost, and is reported now.
    mutating func endTelephoneEvent<Output: RTPStreamOutput>(before timestamp: UInt32, output: inout Output) {
        guard case .playing(let start, let code, let duration) = receivedTelephoneEvent,
            Int32(bitPattern: timestamp &- (start &+ UInt32(duration))) > 0
        else { return }
        receivedTelephoneEvent = .reported(timestamp: start)
        _ = output.perform(.report(.telephoneEvent(code: code, duration: Int(duration))))
    }
}

extension RTPStream {
    /// The RFC 6464 level (RFC 8285 element `id`: V bit, then 7 bits of −dBov) in `view`'s
    /// header extension, if it carries one. Allocates nothing; a malformed extension is
    /// ignored (the packet still plays).
    static func audioLevel(in view: RTPPacketView, id: UInt8) -> UInt8? {
        guard var elements = view.extensionElements else { return nil }
        while let element = try? elements.next() {
            guard element.id == id else { continue }
            return element.data.first.map { $0 & 0x7F }
        }
        return nil
    }

    /// The newest level received since the last call, for the driver to publish.
    package mutating func takeReceivedAudioLevel() -> UInt8? {
        defer { receivedAudioLevel = nil }
        return receivedAudioLevel
    }
}

/// The RFC 4733 event a stream is receiving: none yet, one under way whose end packet has not
/// arrived (its start timestamp, event code and duration so far), or the last one reported,
/// whose repeated end packets are ignored.
enum ReceivedTelephoneEvent: Equatable {
    case none
    case playing(timestamp: UInt32, code: UInt8, duration: UInt16)
    case reported(timestamp: UInt32)
}
