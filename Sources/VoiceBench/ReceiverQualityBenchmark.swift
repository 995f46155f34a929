import Foundation
import VoiceMedia
import VoiceMediaTypes
import VoiceRTP
import VoiceSIP
import VoiceTestKit

/// `pesq_at_baresip_vs_baresip_*`: how what we send holds up when someone else decodes it. The
/// same speech is sent to a baresip receiver twice in one run, through the same impairment
/// (20 ± 20 ms of delay, random loss): once by a stream at the SDK's default settings, once by
/// another baresip, both receivers configured for loss as baresip users do (`opus_inbandfec yes`,
/// `opus_packet_loss 10`, 32 kb/s, VoIP, mono). The figure is ours minus baresip's PESQ-WB at the
/// receiver's recording; only the sender differs.
///
/// The calls are set up by the benchmark itself, as a back-to-back user agent: it invites the
/// receiver with an offer that names the impairment proxy as the media address, and for the
/// baresip sender invites that baresip with an offer carrying the receiver's own Opus parameters
/// (so the sender codes for the receiver's SDP, as in a direct call between the two). Plain RTP:
/// the proxy relays packets between two legs that could not share SRTP keys.
struct ReceiverQualityBenchmark {
    let base: DefaultQualityBenchmark
    let seeds: Int
    /// Our Opus settings (the SDK's default unless a preset is being measured).
    let settings: OpusSettings

    init(seeds: Int, settings: OpusSettings = .voice) throws {
        self.seeds = max(1, seeds)
        self.settings = settings
        base = try DefaultQualityBenchmark(seeds: seeds, only: ["loss5", "loss10"])
    }

    /// A baresip configured for loss, as the figure's definition says: the receiver, or (with a
    /// file to send) the baresip sender.
    static func lossConfiguredBaresip(user: String, sending file: String?, recordingTo directory: String?) -> BaresipConfiguration {
        var c = BaresipConfiguration()
        c.user = user
        c.mediaEncryption = nil
        c.audioCodecs = ["opus/48000/1"]
        c.opusApplication = "voip"
        c.opusStereo = false
        c.opusBitrate = 32_000
        c.opusInbandFEC = true
        c.opusPacketLoss = 10
        c.audioFile = file
        c.recordingDirectory = directory
        return c
    }

    func run() throws -> [(String, String)] {
        var pairs: [(condition: String, baresipSent: Bool, ref: String, deg: String)] = []
        for condition in base.conditions {
            for seed in 0..<seeds {
                let impairment = condition.impairment(seed: UInt64(50_000 + 100 * seed + Int(condition.lossRate * 1_000)))
                for baresipSends in [false, true] {
                    let label = "\(condition.name) seed \(seed) \(baresipSends ? "baresip" : "ours")"
                    let recording = try call(impairment: impairment, baresipSends: baresipSends, label: label)
                    for (v, segment) in try base.cut(recording, label: "at baresip, " + label).enumerated() {
                        let name = "atbaresip-\(condition.name)-\(seed)-\(baresipSends ? "baresip" : "ours")-\(v + 1)"
                        let deg = base.workDirectory + "/\(name).wav"
                        try WAVFile(sampleRate: 48_000, channels: 1, samples: segment).write(toFile: deg)
                        pairs.append((condition.name, baresipSends, base.workDirectory + "/voice-\(v + 1).wav", deg))
                    }
                }
            }
        }
        let list = base.workDirectory + "/pairs-at-baresip.txt"
        try pairs.map { "\($0.ref) \($0.deg)" }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let scores = try PESQBenchmark.python([base.tool, "score-list", list]).split(separator: "\n").compactMap { Double($0) }
        guard scores.count == pairs.count else { throw BenchError("pesq scored \(scores.count) of \(pairs.count) samples") }
        var figures: [(String, String)] = []
        for condition in base.conditions {
            let ours = scores.indices.filter { pairs[$0].condition == condition.name && !pairs[$0].baresipSent }.map { scores[$0] }
            let theirs = scores.indices.filter { pairs[$0].condition == condition.name && pairs[$0].baresipSent }.map { scores[$0] }
            let (mine, baresip) = (DefaultQualityBenchmark.median(ours), DefaultQualityBenchmark.median(theirs))
            print(
                "quality at baresip: \(condition.name): ours median \(DefaultQualityBenchmark.format(mine)) "
                    + "\(DefaultQualityBenchmark.list(ours)); baresip median \(DefaultQualityBenchmark.format(baresip)) "
                    + "\(DefaultQualityBenchmark.list(theirs))")
            figures.append(("pesq_at_baresip_ours_\(condition.name)", DefaultQualityBenchmark.format(mine)))
            figures.append(("pesq_at_baresip_baresip_\(condition.name)", DefaultQualityBenchmark.format(baresip)))
            figures.append(("pesq_at_baresip_vs_baresip_\(condition.name)", String(format: "%+.2f", mine - baresip)))
        }
        return figures
    }

    /// One call into a fresh receiver; returns what it recorded.
    private func call(impairment: NetworkImpairment, baresipSends: Bool, label: String) throws -> [Int16] {
        let directory = base.workDirectory + "/receiver-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The receiver sends silence back (its tone source cannot play into a one-channel codec).
        let silence = directory + "/silence.wav"
        try BaresipWAVFile.write([Int16](repeating: 0, count: base.signal.count + 48_000 * 5), to: silence, channels: 1)
        let receiver = try BaresipPeer(configuration: Self.lossConfiguredBaresip(user: "r", sending: silence, recordingTo: directory))
        defer { receiver.stop() }
        let channel = try SIPPeerUDPChannel()
        defer { channel.close() }
        // The sender is endpoint A of the proxies, the receiver endpoint B; what the receiver
        // sends back flows unimpaired. baresip does not multiplex RTCP, so its RTCP (the
        // reports our sender adapts to) has a proxy of its own, named in the offers (a=rtcp,
        // RFC 3605), with its own loss.
        let proxy = try ImpairmentProxy(endpointA: nil, endpointB: nil, aToB: impairment, bToA: .none)
        defer { proxy.stop() }
        var rtcpImpairment = impairment
        rtcpImpairment.seed &+= 7
        let rtcpProxy = try ImpairmentProxy(endpointA: nil, endpointB: nil, aToB: rtcpImpairment, bToA: .none)
        defer { rtcpProxy.stop() }
        let duration = Double(base.signal.count) / 48_000 + 1.5
        if baresipSends {
            let leg = try B2BLeg.invite(
                receiver, over: channel, offer: Self.offer(port: proxy.addressForB.port, rtcpPort: rtcpProxy.addressForB.port, fmtp: Self.baresipFmtp))
            proxy.connect(endpointB: leg.media)
            rtcpProxy.connect(endpointB: leg.rtcp)
            let file = base.workDirectory + "/sender-\(UInt32.random(in: 0...UInt32.max)).wav"
            try BaresipWAVFile.write(base.signal, to: file, channels: 1)
            let sender = try BaresipPeer(configuration: Self.lossConfiguredBaresip(user: "s", sending: file, recordingTo: nil))
            defer { sender.stop() }
            let senderLeg = try B2BLeg.invite(
                sender, over: channel,
                offer: Self.offer(port: proxy.addressForA.port, rtcpPort: rtcpProxy.addressForA.port, payloadType: leg.payloadType, fmtp: leg.fmtp))
            proxy.connect(endpointA: senderLeg.media)
            rtcpProxy.connect(endpointA: senderLeg.rtcp)
            Thread.sleep(forTimeInterval: duration)
            senderLeg.bye(sender, over: channel)
            leg.bye(receiver, over: channel)
        } else {
            let ourPort = try SIPPeerProcess.freeUDPPortRange(count: 2).lowerBound
            let ourAddress = try SocketAddress(host: "127.0.0.1", port: ourPort)
            proxy.connect(endpointA: ourAddress)
            rtcpProxy.connect(endpointA: try SocketAddress(host: "127.0.0.1", port: ourPort + 1))
            // The SDK's own offer (unencrypted here), naming the proxy as our media address.
            var negotiation = SDPOfferAnswer(
                capabilities: SDPLocalCapabilities(
                    address: "127.0.0.1", port: UInt16(proxy.addressForB.port), codecs: [.opus(settings), .pcmu, .pcma],
                    encryption: .unencrypted))
            let offer = try negotiation.makeOffer().text.replacingOccurrences(
                of: "a=rtcp-mux\r\n", with: "a=rtcp:\(rtcpProxy.addressForB.port)\r\n")
            let leg = try B2BLeg.invite(receiver, over: channel, offer: offer)
            proxy.connect(endpointB: leg.media)
            rtcpProxy.connect(endpointB: leg.rtcp)
            let media = try negotiation.receiveAnswer(try SDPSessionDescription(parsing: leg.answer))
            var configuration = AudioStreamConfiguration(
                localAddress: ourAddress, codec: media.codec, payloadType: media.payloadType, ptime: media.ptime,
                encryption: media.encryption)
            configuration.telephoneEventPayloadType = media.telephoneEventPayloadType
            configuration.redPayloadType = media.redPayloadType
            configuration.peerBandwidthLimit = media.peerBandwidthLimit
            configuration.sendsVoIPMetrics = media.peerWantsVoIPMetrics
            configuration.rtcpMux = media.rtcpMux
            let stream = try AudioStream(configuration: configuration)
            let device = BufferAudioDevice(captureSamples: base.signal)
            try stream.start(remote: proxy.addressForA, remoteRTCP: media.rtcpMux ? nil : rtcpProxy.addressForA, audioDevice: device)
            Thread.sleep(forTimeInterval: duration)
            let sent = stream.stats
            stream.stop()
            leg.bye(receiver, over: channel)
            print(
                "quality at baresip: \(label): we sent \(sent.packetsSent) packets at \(sent.sendBitrate / 1000) kb/s, "
                    + "FEC \(sent.fecEnabled ? "on" : "off"), hint \(sent.packetLossHint)%, \(sent.fecPacketsSent) with FEC; "
                    + "\(sent.reportsAboutUs) reports said \(Int(sent.remoteFractionLost * 100)) % lost")
        }
        Thread.sleep(forTimeInterval: 0.5)  // the recording is finalised
        let path = try receiver.recordings.received.last.unwrap("\(label): the receiver made no recording")
        let recording = try BaresipWAVFile.read(path).channel(0)
        print("quality at baresip: \(label): \(proxy.counts.dropped) of \(proxy.counts.seen) packets dropped; \(recording.count / 48) ms recorded")
        flushOutput()
        return recording
    }

    /// What a baresip configured for loss offers for Opus (its SDP's `a=fmtp`).
    static let baresipFmtp = "stereo=0;sprop-stereo=0;maxaveragebitrate=32000;useinbandfec=1"

    /// A plain-RTP offer of Opus (and telephone-event) at `port` (RTCP at `rtcpPort`) on loopback.
    static func offer(port: Int, rtcpPort: Int, payloadType: Int = 111, fmtp: String) -> String {
        [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio \(port) RTP/AVP \(payloadType) 101", "a=rtcp:\(rtcpPort)", "a=rtpmap:\(payloadType) opus/48000/2",
            "a=fmtp:\(payloadType) \(fmtp)",
            "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-15", "a=ptime:20", "a=sendrecv", "",
        ].joined(separator: "\r\n")
    }
}

/// One leg of the benchmark's back-to-back calls: an INVITE to a baresip, its answer.
struct B2BLeg {
    let callID: String
    let fromTag: String
    let toHeader: String
    /// The answer's SDP, its media address and its Opus payload type and parameters.
    let answer: String
    let media: SocketAddress
    /// Where its RTCP comes from and goes: its `a=rtcp` port, else the RTP port + 1.
    let rtcp: SocketAddress
    let payloadType: Int
    let fmtp: String

    /// Invites `peer` with `offer`, ACKs its 200 and reads its answer.
    static func invite(_ peer: BaresipPeer, over channel: SIPPeerUDPChannel, offer: String) throws -> B2BLeg {
        let callID = "b2b-\(UInt64.random(in: 0...UInt64.max))"
        let fromTag = "t\(UInt32.random(in: 0...UInt32.max))"
        let local = channel.localAddress
        let body = Array(offer.utf8)
        try channel.send(
            "INVITE \(peer.uri) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(local.port);branch=z9hG4bKb2b\(UInt32.random(in: 0...UInt32.max));rport\r\n"
                + "Max-Forwards: 70\r\nFrom: <sip:bench@127.0.0.1:\(local.port)>;tag=\(fromTag)\r\nTo: <\(peer.uri)>\r\n"
                + "Call-ID: \(callID)\r\nCSeq: 1 INVITE\r\nContact: <sip:bench@127.0.0.1:\(local.port)>\r\n"
                + "Content-Type: application/sdp\r\nContent-Length: \(body.count)\r\n\r\n\(offer)",
            to: peer.sipAddress)
        // The final response to this INVITE (provisional ones, retransmissions and anything
        // else the channel gets are passed over).
        var final: SIPResponse?
        _ = channel.receive(timeout: .seconds(10)) { text in
            guard let response = try? SIPMessageParser().parse(datagram: Array(text.utf8)).response,
                response.statusCode >= 200, response.headers["Call-ID"].first == callID,
                response.headers["CSeq"].first?.hasSuffix("INVITE") == true
            else { return false }
            final = response
            return true
        }
        guard let response = final else { throw BenchError("\(peer.uri) did not answer; log:\n\(peer.process.logTail())") }
        if response.statusCode >= 300 { throw BenchError("\(peer.uri) answered the INVITE with \(response.statusCode)") }
        let answer = String(decoding: response.body, as: UTF8.self)
        let leg = try B2BLeg(callID: callID, fromTag: fromTag, toHeader: response.headers["To"].first ?? "", answer: answer)
        try channel.send(leg.request("ACK", cseq: 1, peer: peer, channel: channel), to: peer.sipAddress)
        return leg
    }

    private init(callID: String, fromTag: String, toHeader: String, answer: String) throws {
        self.callID = callID
        self.fromTag = fromTag
        self.toHeader = toHeader
        self.answer = answer
        let sdp = try SDPSessionDescription(parsing: answer)
        guard let audio = sdp.media.first(where: { $0.media == "audio" }) else { throw BenchError("no audio in the answer:\n\(answer)") }
        let host = (audio.connection ?? sdp.connection)?.address ?? "127.0.0.1"
        media = try SocketAddress(host: host, port: Int(audio.port))
        rtcp = try SocketAddress(host: audio.rtcp?.connection?.address ?? host, port: audio.rtcp.map { Int($0.port) } ?? Int(audio.port) + 1)
        guard let opus = audio.rtpMaps.first(where: { $0.encodingName.lowercased() == "opus" }) else {
            throw BenchError("no Opus in the answer:\n\(answer)")
        }
        payloadType = Int(opus.payloadType)
        fmtp = audio.formatParameters(for: String(opus.payloadType))?.parameters ?? ""
    }

    /// Hangs the leg up.
    func bye(_ peer: BaresipPeer, over channel: SIPPeerUDPChannel) {
        try? channel.send(request("BYE", cseq: 2, peer: peer, channel: channel), to: peer.sipAddress)
    }

    private func request(_ method: String, cseq: Int, peer: BaresipPeer, channel: SIPPeerUDPChannel) -> String {
        let local = channel.localAddress
        return "\(method) \(peer.uri) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(local.port);branch=z9hG4bK\(method.lowercased())\(UInt32.random(in: 0...UInt32.max));rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:bench@127.0.0.1:\(local.port)>;tag=\(fromTag)\r\nTo: \(toHeader)\r\n"
            + "Call-ID: \(callID)\r\nCSeq: \(cseq) \(method)\r\nContent-Length: 0\r\n\r\n"
    }
}

extension Optional {
    /// The value, or a benchmark error with `message`.
    func unwrap(_ message: String) throws -> Wrapped {
        guard let self else { throw BenchError(message) }
        return self
    }
}
