import VoiceSupport
extension StreamCore {
    /// Encodes and sends every full frame the capture ring holds. Without a capture device,
    /// while the device is interrupted (either direction: both tracks are off then), or while
    /// its capture stalls (``DeviceActivityWatch``), the stream sends silence on the engine
    /// clock, so the peer still sees media and RTCP and the call's timeline goes on.
    func sendCaptured(now: MediaTime) {
        let interrupted = control.isInterrupted
        if interrupted != captureSawInterruption {
            captureSawInterruption = interrupted
            nextVirtualCapture = nil
            // What the device delivered before or around the interruption is stale now.
            if !interrupted { captureRing.discard(captureRing.availableToRead) }
        }
        let stalled =
            captureDeviceActive && !interrupted
            && captureWatch.isStalled(count: control.captureDeliveries.load(ordering: .relaxed), now: now)
        if stalled != captureSawStall {
            captureSawStall = stalled
            nextVirtualCapture = nil
            // Silence stood in for the stall: what the device delivers late is stale.
            if !stalled { captureRing.discard(captureRing.availableToRead) }
        }
        if !captureDeviceActive || interrupted || stalled {
            if nextVirtualCapture == nil { nextVirtualCapture = now }
            while let due = nextVirtualCapture, now >= due {
                frame.update(repeating: 0)
                sendFrame(now: now)
                nextVirtualCapture = due + MediaTime.milliseconds(Int64(configuration.ptime))
            }
            return
        }
        // A device catching up in a burst (a sound server after a stall) must not add its delay
        // to the call: beyond one frame and 60 ms the backlog is dropped, oldest first.
        let excess = captureRing.availableToRead - frameSamples48k - Self.maximumCaptureBacklog
        if excess > 0 {
            captureRing.discard(excess)
            control.captureOverflows.add(1, ordering: .relaxed)
        }
        while captureRing.availableToRead >= frameSamples48k {
            captureRing.read(into: frame)
            sendFrame(now: now)
        }
    }

    /// Captured 48 kHz samples that may wait beyond one frame: 60 ms, three 20 ms device
    /// periods, more than a device delivering one period per tick ever leaves.
    static let maximumCaptureBacklog = 2_880

    /// Encodes `frame` (silenced when muted or on hold), wraps it in RTP, protects and sends it.
    func sendFrame(now: MediaTime) {
        if control.muted.load(ordering: .relaxed) || control.onHold.load(ordering: .relaxed) {
            frame.update(repeating: 0)
        }
        inputLevel = StreamCore.peak(UnsafeBufferPointer(frame))
        defer {
            rtpTimestamp &+= UInt32(truncatingIfNeeded: frameRTPUnits)
        }
        guard let destination = remote?.rtp else { return }
        if sendTelephoneEventIfDue(destination: destination, now: now) { return }
        let headerLength = RTPHeader.writeMinimal(
            marker: markerNext, payloadType: configuration.payloadType, sequenceNumber: sequenceNumber,
            timestamp: rtpTimestamp, ssrc: configuration.ssrc, into: sendBuffer)
        let payloadArea = UnsafeMutableRawBufferPointer(
            rebasing: sendBuffer[headerLength..<(sendBuffer.count - SRTPSession.maxTrailerLength)])
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
        guard protectAndSend(packetLength: headerLength + payloadLength, payloadLength: payloadLength, to: destination, now: now)
        else { return }
        markerNext = false
    }

    /// Protects the RTP packet at the start of `sendBuffer` (when SRTP is on), sends it and
    /// counts it, then moves to the next sequence number. Returns false, using no sequence
    /// number, when protection failed and nothing went out.
    func protectAndSend(packetLength: Int, payloadLength: Int, to destination: SocketAddress, now: MediaTime) -> Bool {
        var length = packetLength
        if let srtp = srtpSend {
            do throws(SRTPError) {
                length = try srtp.protectRTP(sendBuffer, length: length)
            } catch {
                return false
            }
        }
        if rtpSocket.send(UnsafeRawBufferPointer(rebasing: sendBuffer[0..<length]), to: destination) {
            packetsSent += 1
            octetsSent += UInt64(payloadLength)
            lastSendTime = now
        }
        sequenceNumber &+= 1
        return true
    }

    /// Peak absolute sample value, 0…32767.
    static func peak(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        var m: Int32 = 0
        for s in samples {
            let v = Int32(s)
            m = max(m, v < 0 ? -v : v)
        }
        return Int(min(m, 32_767))
    }
}
