extension StreamCore {
    /// Unprotects, parses and buffers one RTP packet sitting in `receiveBuffer`.
    func receiveRTP(length n: Int, now: MediaTime) {
        var length = n
        if let srtp {
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
        if let te = configuration.telephoneEventPayloadType, view.payloadType == te {
            receiveTelephoneEvent(view)
            return
        }
        guard view.payloadType == configuration.payloadType else {
            malformedPackets += 1
            return
        }
        packetsReceived += 1
        octetsReceived += UInt64(view.payload.count)
        lastPacketArrival = now
        remoteSSRC = view.ssrc
        _ = receiverStats.received(sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, arrivalTime: now)
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
