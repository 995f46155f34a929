import VoiceSupport
extension StreamCore {
    /// Sends a compound SR (or RR when we have sent nothing) + SDES CNAME, plus BYE on the way out.
    func sendRTCP(now: MediaTime, bye: Bool) {
        rtcp.scheduleNext(after: now)
        guard let destination = remote?.rtcp ?? remote?.rtp else { return }
        var blocks: [RTCPReportBlock] = []
        if packetsReceived > 0 {
            var dlsr: UInt32 = 0
            if let arrival = rtcp.lastSRArrival { dlsr = NTPTimestamp.compact(duration: now - arrival) }
            let block = receiverStats.makeReportBlock(ssrc: remoteSSRC, lastSR: rtcp.lastSRCompact, delaySinceLastSR: dlsr)
            lastFractionLost = Double(block.fractionLost) / 256
            blocks.append(block)
        }
        let report: RTCPPacket
        if packetsSent > 0 {
            let elapsed = lastSendTime.map { now - $0 } ?? .zero
            let rtpNow = rtpTimestamp &+ UInt32(truncatingIfNeeded: elapsed.nanoseconds * Int64(rtpClockRate) / 1_000_000_000)
            let ntp = RTCPState.wallClockNTP()
            rtcp.recordSenderReport(compact: ntp.compact)
            report = .senderReport(
                RTCPSenderReport(
                    ssrc: configuration.ssrc, ntpTimestamp: ntp, rtpTimestamp: rtpNow,
                    packetCount: UInt32(truncatingIfNeeded: packetsSent), octetCount: UInt32(truncatingIfNeeded: octetsSent),
                    reportBlocks: blocks))
        } else {
            report = .receiverReport(RTCPReceiverReport(ssrc: configuration.ssrc, reportBlocks: blocks))
        }
        let compound = RTCPCompoundPacket(
            report: report, sourceDescription: RTCPSourceDescription(ssrc: configuration.ssrc, cname: configuration.cname),
            goodbye: bye ? RTCPGoodbye(ssrcs: [configuration.ssrc]) : nil)
        var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: sendBuffer[0..<(sendBuffer.count - SRTPSession.maxTrailerLength)]))
        do throws(RTCPError) { try compound.write(into: &writer) } catch { return }
        var length = writer.offset
        if let srtp = srtpSend {
            do throws(SRTPError) { length = try srtp.protectRTCP(sendBuffer, length: length) } catch { return }
        }
        let socket = rtcpSocket ?? rtpSocket
        if socket.send(UnsafeRawBufferPointer(rebasing: sendBuffer[0..<length]), to: destination) {
            rtcp.sent += 1
        }
    }

    /// Unprotects and parses a compound RTCP packet in `receiveBuffer`.
    func receiveRTCP(length n: Int, now: MediaTime) {
        var length = n
        if let srtp = srtpReceive {
            do throws(SRTPError) {
                length = try srtp.unprotectRTCP(receiveBuffer, length: n)
            } catch {
                countSRTPFailure(error)
                return
            }
        }
        let compound: RTCPCompoundPacket
        do throws(RTCPError) {
            compound = try RTCPCompoundPacket(parsing: UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<length]))
        } catch {
            malformedPackets += 1
            return
        }
        rtcp.received += 1
        // Reports and BYEs count only from the source being played: anyone else's (forged,
        // or replayed from earlier) would falsify the stats or end the stream.
        for packet in compound.packets {
            switch packet {
            case .senderReport(let sr):
                guard isCurrentSource(sr.ssrc) else { continue }
                if sourceGate.current != nil { followSource(rtcp: true) }
                rtcp.peerReports += 1
                rtcp.remoteSenderPacketCount = sr.packetCount
                rtcp.lastSRCompact = sr.ntpTimestamp.compact
                rtcp.lastSRArrival = now
                handleReportBlocks(sr.reportBlocks, arrival: now)
            case .receiverReport(let rr):
                guard isCurrentSource(rr.ssrc) else { continue }
                if sourceGate.current != nil { followSource(rtcp: true) }
                rtcp.peerReports += 1
                handleReportBlocks(rr.reportBlocks, arrival: now)
            case .goodbye(let bye):
                guard let current = sourceGate.current, bye.ssrcs.contains(current) else { continue }
                control.emit(.remoteBye)
            default:
                break
            }
        }
    }

    /// Whether RTCP from `ssrc` speaks for the source being played. A receive-only peer has no
    /// RTP source; its reports are taken until one has proven itself.
    private func isCurrentSource(_ ssrc: UInt32) -> Bool {
        guard let current = sourceGate.current else { return true }
        return ssrc == current
    }

    private func handleReportBlocks(_ blocks: [RTCPReportBlock], arrival: MediaTime) {
        for block in blocks where block.ssrc == configuration.ssrc {
            rtcp.reportsReceived += 1
            rtcp.remoteFractionLost = Double(block.fractionLost) / 256
            rtcp.remoteJitterUnits = block.jitter
            rtcp.remoteCumulativeLost = Int64(block.cumulativeLost)
            // The round trip only from an LSR naming one of our recent SRs: a replayed or
            // made-up report would otherwise claim any RTT it likes.
            if rtcp.sentSenderReport(compact: block.lastSR),
                let rtt = RTCPRoundTrip.compute(
                    arrivalCompactNTP: RTCPState.wallClockNTP(at: arrival).compact, lsr: block.lastSR, dlsr: block.delaySinceLastSR)
            {
                rtcp.rtt = rtt
            }
            adaptFEC(remoteLoss: rtcp.remoteFractionLost)
        }
    }

    /// Feeds the peer's loss report to the FEC policy and applies what changed.
    func adaptFEC(remoteLoss: Double) {
        guard let change = lossAdaptation?.reportReceived(fractionLost: remoteLoss) else { return }
        apply(change)
    }

    /// Sets the encoder's FEC, loss hint and bitrate.
    func apply(_ setting: OpusLossAdaptation.Setting) {
        if setting.fec != fecEnabled { encoder.setFEC(setting.fec) }
        if setting.lossHint != lossHint { encoder.setPacketLossPercent(setting.lossHint) }
        if setting.bitrate != sendBitrate { encoder.setBitrate(setting.bitrate) }
        fecEnabled = setting.fec
        lossHint = setting.lossHint
        sendBitrate = setting.bitrate
    }

    /// Publishes a stats snapshot without waiting: skipped if a reader holds the lock right now.
    func publishStats(now: MediaTime, final: Bool) {
        var s = AudioStreamStats()
        s.timestamp = now
        s.codec = configuration.codec.name
        s.payloadType = configuration.payloadType
        s.ssrc = configuration.ssrc
        s.remoteSSRC = remoteSSRC
        s.packetsSent = packetsSent
        s.bytesSent = octetsSent
        s.packetsReceived = packetsReceived
        s.bytesReceived = octetsReceived
        s.packetsLost = Int64(receiverStats.cumulativeLost)
        s.fractionLost = lastFractionLost
        s.jitterMs = Double(receiverStats.jitter) * 1000 / Double(rtpClockRate)
        s.rttMs = rtcp.rtt.map { $0.milliseconds }
        s.remoteFractionLost = rtcp.remoteFractionLost
        s.remoteJitterMs = Double(rtcp.remoteJitterUnits) * 1000 / Double(rtpClockRate)
        s.remotePacketsLost = rtcp.remoteCumulativeLost
        s.inputLevel = inputLevel
        s.outputLevel = outputLevel
        s.jitterBuffer = jitterBuffer.stats
        s.timeStretchRemovedSamples = timeStretchRemoved
        s.timeStretchAddedSamples = timeStretchAdded
        s.remoteAddressSwitches = remoteAddressSwitches
        s.renegotiations = renegotiations
        s.remoteRTPAddress = remote?.rtp
        s.srtpAuthFailures = srtpAuthFailures
        s.srtpReplayFailures = srtpReplayFailures
        s.malformedPackets = malformedPackets
        s.foreignSourcePackets = foreignSourcePackets
        s.fecEnabled = fecEnabled
        s.packetLossHint = lossHint
        s.sendBitrate = sendBitrate
        s.fecPacketsSent = fecPacketsSent
        s.captureOverflows = control.captureOverflows.load(ordering: .relaxed)
        s.renderUnderruns = control.renderUnderruns.load(ordering: .relaxed)
        s.captureXruns = control.captureXruns.load(ordering: .relaxed)
        s.renderXruns = control.renderXruns.load(ordering: .relaxed)
        s.deviceSuspends = control.deviceSuspends.load(ordering: .relaxed)
        s.deviceInterruptions = control.deviceInterruptions.load(ordering: .relaxed)
        s.isAudioInterrupted = control.isInterrupted
        s.captureStalls = captureWatch.stalls
        s.renderStalls = renderWatch.stalls
        s.rtcpSent = rtcp.sent
        s.rtcpReceived = rtcp.received
        s.peerReports = rtcp.peerReports
        s.reportsAboutUs = rtcp.reportsReceived
        s.remoteSenderPacketCount = rtcp.remoteSenderPacketCount
        s.lastPacketReceived = lastPacketArrival
        // E-model: one-way delay ≈ RTT/2 + jitter-buffer delay + packetization; loss after concealment.
        let oneWay = (s.rttMs ?? 0) / 2 + s.jitterBuffer.currentDelay.milliseconds + Double(configuration.ptime)
        let lossPercent = max(s.fractionLost, 0) * 100
        s.mos = EModel.forCodec(s.codec).mos(oneWayDelayMs: oneWay, packetLossPercent: lossPercent)
        if final {
            control.snapshot.withLock { $0 = s }  // the controlling thread is waiting for this one
        } else {
            _ = control.snapshot.withLockIfAvailable { $0 = s }
        }
    }
}
