import VoiceBytes
import VoiceSupport

extension RTPStream {
    /// Sends a compound SR (or RR when we have sent nothing) + SDES CNAME, plus BYE on the way out.
    mutating func sendRTCP<Output: RTPStreamOutput>(now: MediaTime, bye: Bool, output: inout Output) {
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
            let ntp = RTCPState.ntp(at: now, wallClockOffset: wallClockOffset)
            rtcp.recordSenderReport(compact: ntp.compact)
            report = .senderReport(
                RTCPSenderReport(
                    ssrc: configuration.ssrc, ntpTimestamp: ntp, rtpTimestamp: rtpNow,
                    packetCount: UInt32(truncatingIfNeeded: packetsSent), octetCount: UInt32(truncatingIfNeeded: octetsSent),
                    reportBlocks: blocks))
        } else {
            report = .receiverReport(RTCPReceiverReport(ssrc: configuration.ssrc, reportBlocks: blocks))
        }
        var compound = RTCPCompoundPacket(
            report: report, sourceDescription: RTCPSourceDescription(ssrc: configuration.ssrc, cname: configuration.cname),
            goodbye: bye ? RTCPGoodbye(ssrcs: [configuration.ssrc]) : nil)
        if configuration.sendsVoIPMetrics, packetsReceived > 0 {
            // After the SDES (RFC 3550 §6.1 wants it second), before any BYE.
            compound.packets.insert(
                .extendedReport(RTCPExtendedReport(ssrc: configuration.ssrc, blocks: [.voipMetrics(voipMetrics())])), at: 2)
        }
        let packet = buffers.send
        var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: packet[0..<(packet.count - trailerRoom)]))
        do throws(RTCPError) { try compound.write(into: &writer) } catch { return }
        var length = writer.offset
        if let protection = sendProtection {
            do throws(PacketProtectionError) { length = try protection.protect(rtcp: packet, length: length) } catch { return }
        }
        if output.perform(.send(UnsafeRawBufferPointer(rebasing: packet[0..<length]), to: destination, component: .rtcp)) {
            rtcp.sent += 1
        }
    }

    /// Unprotects and parses a compound RTCP packet.
    mutating func receiveRTCP<Output: RTPStreamOutput>(
        _ datagram: UnsafeMutableRawBufferPointer, length n: Int, from source: SocketAddress, at now: MediaTime,
        output: inout Output
    ) {
        var length = n
        if let protection = receiveProtection {
            do throws(PacketProtectionError) {
                length = try protection.unprotect(rtcp: datagram, length: n)
            } catch {
                countProtectionFailure(error)
                return
            }
        }
        let compound: RTCPCompoundPacket
        do throws(RTCPError) {
            compound = try RTCPCompoundPacket(parsing: UnsafeRawBufferPointer(rebasing: datagram[0..<length]))
        } catch {
            malformedPackets += 1
            return
        }
        rtcp.received += 1
        // The peer's burst figures first: the loss report beside them then adapts RED with them.
        for case .extendedReport(let xr) in compound.packets where isCurrentSource(xr.ssrc) {
            if let metrics = xr.voipMetrics(about: configuration.ssrc) { noteVoIPMetrics(metrics) }
        }
        // Reports and BYEs count only from the source being played: anyone else's (forged,
        // or replayed from earlier) would falsify the stats or end the stream.
        for packet in compound.packets {
            switch packet {
            case .senderReport(let sr):
                guard isCurrentSource(sr.ssrc) else { continue }
                if sourceGate.current != nil { followSource(source, rtcp: true) }
                rtcp.peerReports += 1
                rtcp.remoteSenderPacketCount = sr.packetCount
                rtcp.lastSRCompact = sr.ntpTimestamp.compact
                rtcp.lastSRArrival = now
                handleReportBlocks(sr.reportBlocks, arrival: now)
            case .receiverReport(let rr):
                guard isCurrentSource(rr.ssrc) else { continue }
                if sourceGate.current != nil { followSource(source, rtcp: true) }
                rtcp.peerReports += 1
                handleReportBlocks(rr.reportBlocks, arrival: now)
            case .goodbye(let bye):
                guard let current = sourceGate.current, bye.ssrcs.contains(current) else { continue }
                _ = output.perform(.report(.remoteBye))
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

    private mutating func handleReportBlocks(_ blocks: [RTCPReportBlock], arrival: MediaTime) {
        for block in blocks where block.ssrc == configuration.ssrc {
            rtcp.reportsReceived += 1
            rtcp.remoteFractionLost = Double(block.fractionLost) / 256
            rtcp.remoteJitterUnits = block.jitter
            rtcp.remoteCumulativeLost = Int64(block.cumulativeLost)
            // The round trip only from an LSR naming one of our recent SRs: a replayed or
            // made-up report would otherwise claim any RTT it likes.
            if rtcp.sentSenderReport(compact: block.lastSR),
                let rtt = RTCPRoundTrip.compute(
                    arrivalCompactNTP: RTCPState.ntp(at: arrival, wallClockOffset: wallClockOffset).compact, lsr: block.lastSR,
                    dlsr: block.delaySinceLastSR)
            {
                rtcp.rtt = rtt
            }
            adaptFEC(remoteLoss: rtcp.remoteFractionLost)
            adaptRED(remoteLoss: rtcp.remoteFractionLost)
        }
    }

    /// Feeds the peer's loss report to the FEC policy and applies what changed.
    mutating func adaptFEC(remoteLoss: Double) {
        guard let change = lossAdaptation?.reportReceived(fractionLost: remoteLoss) else { return }
        apply(change)
    }

    /// Sets the encoder's FEC, loss hint and bitrate.
    /// While RED shares a peer's bitrate cap, the bitrate never exceeds the primary's share.
    mutating func apply(_ setting: OpusLossAdaptation.Setting) {
        let bitrate = min(setting.bitrate, redPrimaryCeiling)
        if setting.fec != fecEnabled { encoder.setFEC(setting.fec) }
        if setting.lossHint != lossHint { encoder.setPacketLossPercent(setting.lossHint) }
        if bitrate != sendBitrate { encoder.setBitrate(bitrate) }
        fecEnabled = setting.fec
        lossHint = setting.lossHint
        sendBitrate = bitrate
    }

    /// The stream's figures at `now`: what it sent, received, played and measured. The device
    /// figures (overflows, xruns, stalls, interruptions) are the driver's to fill in.
    package func statistics(at now: MediaTime) -> AudioStreamStats {
        var s = AudioStreamStats()
        s.timestamp = now
        s.codec = configuration.codec.name
        s.mediaCodec = configuration.codec
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
        s.srtpAuthFailures = authenticationFailures
        s.srtpReplayFailures = replayFailures
        s.malformedPackets = malformedPackets
        s.foreignSourcePackets = foreignSourcePackets
        s.probationPackets = probationPackets
        s.framesNotDecoded = announcedSilence.skipped
        s.redPacketsReceived = redPacketsReceived
        s.redPacketsSent = redPacketsSent
        s.redBlocksSent = redBlocksSent
        s.fecCopiesSent = fecCopiesSent
        s.redDepth = redDepthInUse
        s.remoteVoIPMetrics = rtcp.remoteVoIPMetrics
        s.inbound = inbound
        s.redBlocksRefused = redFilter.unknownType + redFilter.nested + redFilter.outOfOrder + redBlocksUnplaced
        s.announcedSilenceVerified = announcedSilence.verified
        s.announcedLevelsDistrusted = announcedSilence.isDistrusted
        s.fecEnabled = fecEnabled
        s.packetLossHint = lossHint
        s.sendBitrate = sendBitrate
        s.fecPacketsSent = fecPacketsSent
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
        return s
    }
}
