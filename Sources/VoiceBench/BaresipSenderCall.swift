import VoiceRTP
import Foundation
import VoiceMedia
import VoiceSIP
import VoiceTestKit
import VoiceMediaTypes

/// baresip, with its own encoder settings, speaking a WAV file into a call that the benchmark
/// places with the SDK's SDP offer (Opus at the default settings, SDES-SRTP). baresip's media
/// reaches a default ``AudioStream`` through an ``ImpairmentProxy``, and that stream's
/// ``BufferAudioDevice`` records the real-time playout: the same receiver and capture as a call
/// between two SDK endpoints, so only the sender differs.
final class BaresipSenderCall {
    let peer: BaresipPeer
    let device: BufferAudioDevice
    private let channel: SIPPeerUDPChannel
    private let proxy: ImpairmentProxy
    private let stream: AudioStream
    private let callID = "bench-\(UInt64.random(in: 0...UInt64.max))"
    private let fromTag = "b\(UInt32.random(in: 0...UInt32.max))"
    private var toHeader = ""

    /// Starts baresip playing `samples` and places the call; audio flows when this returns.
    /// - Parameters:
    ///   - settings: the Opus settings our offer announces (the SDK's default codec list has `.voice`).
    ///   - toUs: impairment of baresip's packets on their way to our stream.
    ///   - toBaresip: impairment of our packets (RTCP reports, silence) on their way back.
    init(
        samples: [Int16], workDirectory: String, offering settings: OpusSettings, toUs: NetworkImpairment,
        toBaresip: NetworkImpairment, recordingCapacity: Int, timeStretch: Bool = true
    ) throws {
        let file = workDirectory + "/baresip-source-\(UInt32.random(in: 0...UInt32.max)).wav"
        try BaresipWAVFile.write(samples, to: file)
        var configuration = BaresipConfiguration()
        configuration.audioFile = file
        configuration.audioCodecs = ["opus/48000/2"]
        peer = try BaresipPeer(configuration: configuration)
        channel = try SIPPeerUDPChannel()
        let ourPort = try SIPPeerProcess.freeUDPPortRange(count: 1).lowerBound
        let ourAddress = try SocketAddress(host: "127.0.0.1", port: ourPort)
        proxy = try ImpairmentProxy(endpointA: ourAddress, endpointB: nil, aToB: toBaresip, bToA: toUs)

        // The offer the SDK makes, announcing the proxy as our media address.
        var negotiation = SDPOfferAnswer(
            capabilities: SDPLocalCapabilities(
                address: "127.0.0.1", port: UInt16(proxy.addressForB.port), codecs: [.opus(settings), .pcmu, .pcma]))
        let offer = try negotiation.makeOffer()
        let ok = try Self.invite(channel: channel, peer: peer, callID: callID, fromTag: fromTag, sdp: offer.text)
        toHeader = ok.headers["To"].first ?? ""
        let answer = try SDPSessionDescription(parsing: ok.body)
        let media = try negotiation.receiveAnswer(answer)

        var streamConfiguration = AudioStreamConfiguration(
            localAddress: ourAddress, codec: media.codec, payloadType: media.payloadType, ptime: media.ptime,
            encryption: media.encryption)
        streamConfiguration.telephoneEventPayloadType = media.telephoneEventPayloadType
        streamConfiguration.redPayloadType = media.redPayloadType
        streamConfiguration.peerBandwidthLimit = media.peerBandwidthLimit
        streamConfiguration.sendsVoIPMetrics = media.peerWantsVoIPMetrics
        streamConfiguration.rtcpMux = media.rtcpMux
        streamConfiguration.jitterBuffer.timeStretch = timeStretch
        stream = try AudioStream(configuration: streamConfiguration)
        proxy.connect(endpointB: try SocketAddress(host: media.remoteRTP.host, port: Int(media.remoteRTP.port)))
        device = BufferAudioDevice(captureSamples: [], recordingCapacity: recordingCapacity)
        try channel.send(request("ACK", cseq: 1), to: peer.sipAddress)
        try stream.start(remote: proxy.addressForA, audioDevice: device)
        try? FileManager.default.removeItem(atPath: file)  // baresip has opened it
    }

    /// What our receiving stream has seen so far.
    var receiverStats: AudioStreamStats { stream.stats }

    /// Hangs up, stops the stream, the proxy and baresip.
    func stop() {
        try? channel.send(request("BYE", cseq: 2), to: peer.sipAddress)
        stream.stop()
        proxy.stop()
        channel.close()
        peer.stop()
    }

    private func request(_ method: String, cseq: Int) -> String {
        let local = channel.localAddress
        return """
            \(method) \(peer.uri) SIP/2.0\r
            Via: SIP/2.0/UDP 127.0.0.1:\(local.port);branch=z9hG4bK\(method.lowercased())\(UInt32.random(in: 0...UInt32.max));rport\r
            Max-Forwards: 70\r
            From: <sip:bench@127.0.0.1:\(local.port)>;tag=\(fromTag)\r
            To: \(toHeader)\r
            Call-ID: \(callID)\r
            CSeq: \(cseq) \(method)\r
            Content-Length: 0\r
            \r

            """
    }

    /// Sends the INVITE and returns its 200 (loopback: no retransmissions needed).
    private static func invite(
        channel: SIPPeerUDPChannel, peer: BaresipPeer, callID: String, fromTag: String, sdp: String
    ) throws -> SIPResponse {
        let local = channel.localAddress
        let body = Array(sdp.utf8)
        let message = """
            INVITE \(peer.uri) SIP/2.0\r
            Via: SIP/2.0/UDP 127.0.0.1:\(local.port);branch=z9hG4bKinv\(UInt32.random(in: 0...UInt32.max));rport\r
            Max-Forwards: 70\r
            From: <sip:bench@127.0.0.1:\(local.port)>;tag=\(fromTag)\r
            To: <\(peer.uri)>\r
            Call-ID: \(callID)\r
            CSeq: 1 INVITE\r
            Contact: <sip:bench@127.0.0.1:\(local.port)>\r
            Content-Type: application/sdp\r
            Content-Length: \(body.count)\r
            \r
            \(sdp)
            """
        try channel.send(message, to: peer.sipAddress)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let text = channel.receive(timeout: .seconds(1)) else { continue }
            guard let response = try? SIPMessageParser().parse(datagram: Array(text.utf8)).response,
                response.headers["CSeq"].first?.hasSuffix("INVITE") == true
            else { continue }
            if response.statusCode >= 300 { throw BenchError("baresip answered the INVITE with \(response.statusCode)") }
            if response.statusCode >= 200 { return response }
        }
        throw BenchError("baresip did not answer the INVITE; log:\n\(peer.process.logTail())")
    }
}
