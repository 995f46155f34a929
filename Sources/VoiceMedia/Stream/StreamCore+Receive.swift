import VoiceSupport
extension StreamCore {
    /// Unprotects, parses and buffers one RTP packet sitting in `receiveBuffer`.
    func receiveRTP(length n: Int, now: MediaTime) {
        var length = n
        if let srtp = srtpReceive {
            do throws(SRTPError) {
                length = try srtp.unprotectRTP(receiveBuffer, length: n)
            } catch {
                countSRTPFailure(error)
                return
            }
        }
        let view: RTPPacketView
        do throws(RTPError) {
            view = try RTPPacketView(parsing: UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<length]))
        } catch {
            malformedPackets += 1
            return
        }
        let isTelephoneEvent = configuration.telephoneEventPayloadType.map { view.payloadType == $0 } ?? false
        guard isTelephoneEvent || view.payloadType == configuration.payloadType else {
            malformedPackets += 1
            return
        }
        switch sourceGate.admit(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, arrival: now) {
        case .accept:
            break
        case .acceptNewSource:
            // Another sender (a PBX bridging a new leg) after the old one went quiet.
            receiverStats = RTPReceiverStatistics(clockRate: rtpClockRate)
        case .probation:
            return
        case .foreign:
            foreignSourcePackets += 1
            return
        }
        followSource(rtcp: false)
        // Events share the source's sequence numbers, so they count for RTP statistics too.
        packetsReceived += 1
        octetsReceived += UInt64(view.payload.count)
        lastPacketArrival = now
        remoteSSRC = view.ssrc
        _ = receiverStats.received(sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, arrivalTime: now)
        if isTelephoneEvent {
            receiveTelephoneEvent(view)
            return
        }
        let duration: Int
        do throws(MediaCodecError) {
            duration = try decoder.duration(of: view.payload)
        } catch {
            malformedPackets += 1
            return
        }
        _ = jitterBuffer.insert(
            sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, ssrc: view.ssrc, marker: view.marker,
            payload: view.payload, duration: duration, arrival: now)
    }

    /// Symmetric RTP (RFC 4961): sends to where the peer's media comes from, once a packet from
    /// a new address has passed SRTP authentication and the source gate, so only the key holder
    /// can move our media (a peer that changed networks, or one behind a NAT whose SDP names a
    /// private address). Plain RTP proves nothing, so it never moves the stream.
    func followSource(rtcp: Bool) {
        guard srtpReceive != nil, packetSource.length > 0, var current = remote,
            control.symmetricRTP.load(ordering: .relaxed)
        else { return }
        if rtcp {
            guard !configuration.rtcpMux, let old = current.rtcp, old != packetSource else { return }
            current.rtcp = packetSource
        } else {
            guard current.rtp != packetSource else { return }
            if configuration.rtcpMux || current.rtcp == current.rtp { current.rtcp = packetSource }
            current.rtp = packetSource
        }
        remote = current
        remoteAddressSwitches += 1
    }

    func countSRTPFailure(_ error: SRTPError) {
        if error == .authFail {
            srtpAuthFailures += 1
        } else if error == .replayFail || error == .replayOld {
            srtpReplayFailures += 1
        } else {
            malformedPackets += 1
        }
    }

    /// Reports an RFC 4733 event once, when its first end packet arrives.
    func receiveTelephoneEvent(_ view: RTPPacketView) {
        guard let event = try? TelephoneEvent(parsing: view.payload) else {
            malformedPackets += 1
            return
        }
        guard event.isEnd, lastTelephoneEventTimestamp != view.timestamp else { return }
        lastTelephoneEventTimestamp = view.timestamp
        control.emit(.telephoneEvent(code: event.event, duration: Int(event.duration)))
    }
}
