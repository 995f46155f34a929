import Foundation
import VoiceSIP
import VoiceSIPTestVectors

/// `sip_parse_msgs_per_s`: the SIP parser on the RFC 4475 messages a parser must accept and on
/// a typical INVITE (ours, with its SDP offer), one after another for a few seconds, beside the
/// bare `memcpy` of the same bytes (no C SIP parser is at hand to compare with).
struct SIPParseBenchmark {
    var seconds = 2.0

    struct Result {
        var messagesPerSecond: Double
        var invitesPerSecond: Double
        var memcpyMessagesPerSecond: Double
        var corpus: Int
        var averageBytes: Double
    }

    static let typicalInvite = Array(
        """
        INVITE sip:callee@127.0.0.1:44141 SIP/2.0\r
        Via: SIP/2.0/UDP 127.0.0.1:46826;rport;branch=z9hG4bKqg8enh6fpg58ajmdea87\r
        Max-Forwards: 70\r
        From: <sip:caller@127.0.0.1>;tag=pj5qvd31kkxfbwfv\r
        To: <sip:callee@127.0.0.1:44141>\r
        Call-ID: yl1vlp07xxchzpxqm9pc5j62@127.0.0.1\r
        CSeq: 1 INVITE\r
        Contact: <sip:caller@127.0.0.1:46826>\r
        Allow: INVITE, ACK, BYE, CANCEL, OPTIONS, INFO, UPDATE\r
        User-Agent: VoiceSDK\r
        Content-Type: application/sdp\r
        Content-Length: 567\r
        \r
        v=0\r
        o=- 401933574327806286 1 IN IP4 127.0.0.1\r
        s=-\r
        c=IN IP4 127.0.0.1\r
        t=0 0\r
        m=audio 43203 RTP/SAVP 111 0 8 110 101\r
        a=rtpmap:111 opus/48000/2\r
        a=fmtp:111 useinbandfec=1;usedtx=0;maxaveragebitrate=80000;stereo=0\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:8 PCMA/8000\r
        a=rtpmap:110 telephone-event/48000\r
        a=fmtp:110 0-16\r
        a=rtpmap:101 telephone-event/8000\r
        a=fmtp:101 0-16\r
        a=ptime:20\r
        a=sendrecv\r
        a=rtcp-mux\r
        a=crypto:1 AEAD_AES_256_GCM inline:Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy\r
        a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy\r

        """.utf8)

    func run() -> Result {
        let parser = SIPMessageParser()
        // The corpus: what the parser accepts (all of it, as the RFC intends), plus the INVITE.
        var corpus = RFC4475.validDatagrams.map(\.bytes).filter { (try? parser.parse(datagram: $0)) != nil }
        corpus.append(Self.typicalInvite)
        let averageBytes = Double(corpus.map(\.count).reduce(0, +)) / Double(corpus.count)
        let all = rate { _ = try? parser.parse(datagram: corpus[$0 % corpus.count]) }
        let invites = rate { _ = try? parser.parse(datagram: Self.typicalInvite); _ = $0 }
        var sink = [UInt8](repeating: 0, count: 70_000)
        let copies = rate { i in
            let message = corpus[i % corpus.count]
            message.withUnsafeBytes { source in
                sink.withUnsafeMutableBytes { destination in
                    if let s = source.baseAddress, let d = destination.baseAddress { memcpy(d, s, source.count) }
                }
            }
        }
        if sink[0] == 0xFF { print("") }  // keep the copies
        return Result(
            messagesPerSecond: all, invitesPerSecond: invites, memcpyMessagesPerSecond: copies, corpus: corpus.count,
            averageBytes: averageBytes)
    }

    /// Calls `body` with 0, 1, 2, … for `seconds` of this thread's CPU; returns calls per CPU second.
    private func rate(_ body: (Int) -> Void) -> Double {
        let start = ProcessFigures.threadCPUSeconds()
        var i = 0
        while true {
            for _ in 0..<256 {
                body(i)
                i += 1
            }
            let spent = ProcessFigures.threadCPUSeconds() - start
            if spent >= seconds { return Double(i) / spent }
        }
    }
}
