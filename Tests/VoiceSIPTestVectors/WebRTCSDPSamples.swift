/// SDP captured from real WebRTC peers on this machine class (Chromium 156, aiortc 1.16,
/// baresip 1.0 with ICE and DTLS-SRTP, rtpengine 10.5), for the parser and offer/answer tests.
/// Addresses are documentation and ULA addresses; certificates are throwaway test ones. The
/// baresip capture was followed by the console log of the call; only its SDP is kept.
package enum WebRTCSDPSamples {
    /// chromium156-offer.sdp
    package static let chromiumOffer = """
        v=0
        o=- 9036756940162145550 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0
        a=extmap-allow-mixed
        a=msid-semantic: WMS d7424e46-7277-4702-bc90-9fa04bc1825e
        m=audio 35847 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 192.0.2.2
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:3357076976 1 udp 2122194687 192.0.2.2 35847 typ host generation 0 network-id 1
        a=candidate:58600464 1 udp 2122265343 fd00::2 47321 typ host generation 0 network-id 2
        a=candidate:917649764 1 tcp 1518214911 192.0.2.2 9 typ host tcptype active generation 0 network-id 1
        a=candidate:4258592900 1 tcp 1518285567 fd00::2 9 typ host tcptype active generation 0 network-id 2
        a=ice-ufrag:TxD8
        a=ice-pwd:PsWCSkHQZxEX/VGFJCnIe45g
        a=ice-options:trickle
        a=fingerprint:sha-256 7D:BA:E5:8F:C0:32:92:7E:9B:F2:DB:B3:55:BB:8C:6B:9A:BB:6B:73:E5:5A:7E:A8:23:76:72:44:CC:D2:7F:20
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendrecv
        a=msid:d7424e46-7277-4702-bc90-9fa04bc1825e 4abdd4b8-5b20-4295-882d-0ce7a3c7ea7a
        a=rtcp-mux
        a=rtcp-rsize
        a=rtcp-xr:rcvr-rtt=all
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:3753550503 cname:a9+UzF7PKIs4cZD7
        a=ssrc:3753550503 msid:d7424e46-7277-4702-bc90-9fa04bc1825e 4abdd4b8-5b20-4295-882d-0ce7a3c7ea7a
        """.replacingNewlinesWithCRLF

    /// chromium156-offer-relay-only.sdp
    package static let chromiumRelayOnlyOffer = """
        v=0
        o=- 889206656900451319 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0
        a=extmap-allow-mixed
        a=msid-semantic: WMS 91c807f6-3aab-4fe0-b9c9-880bd8cd8206
        m=audio 49250 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 127.0.0.1
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:325641567 1 udp 58597375 127.0.0.1 49250 typ relay raddr 0.0.0.0 rport 0 generation 0 network-id 1
        a=ice-ufrag:v4Ta
        a=ice-pwd:Gl1WZB+/l1hXlmrSvasJnZuh
        a=ice-options:trickle
        a=fingerprint:sha-256 AC:4F:AC:F8:1A:10:5A:18:99:69:61:A2:99:3A:A2:99:F1:0C:40:84:D2:33:37:E3:4D:F2:53:97:05:FB:58:47
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendrecv
        a=msid:91c807f6-3aab-4fe0-b9c9-880bd8cd8206 68dcc9c6-e5e0-4a3d-b939-08d08b75ccde
        a=rtcp-mux
        a=rtcp-rsize
        a=rtcp-xr:rcvr-rtt=all
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:2683022269 cname:WDaFCHMJoRv8s+SG
        a=ssrc:2683022269 msid:91c807f6-3aab-4fe0-b9c9-880bd8cd8206 68dcc9c6-e5e0-4a3d-b939-08d08b75ccde
        """.replacingNewlinesWithCRLF

    /// aiortc1.16-offer.sdp
    package static let aiortcOffer = """
        v=0
        o=- 4004752006 4004752006 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0
        a=msid-semantic:WMS *
        m=audio 34405 UDP/TLS/RTP/SAVPF 96 9 0 8
        c=IN IP4 192.0.2.2
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:ac7e0cee-6e87-4eb3-9a81-2e27907dd5cc bd6fee61-eea0-4e3c-87cc-172b5a63de4a
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:1910831803 cname:9db6f59a-2ec2-487d-b4f7-9404d9c906e6
        a=rtpmap:96 opus/48000/2
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 34405 typ host
        a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 40724 typ host
        a=end-of-candidates
        a=ice-ufrag:etPA
        a=ice-pwd:GSeeaEokIt4phzBnLXkVR1
        a=fingerprint:sha-256 05:96:19:B9:1C:C8:D9:3F:EE:1C:23:14:7C:E2:2C:81:46:F8:62:A8:67:D9:88:FF:A7:F4:91:78:01:7C:FB:36
        a=fingerprint:sha-384 8B:6C:13:92:C7:84:36:FD:FA:F1:1B:77:95:46:A4:84:12:59:AF:CE:83:16:83:A4:21:C4:EB:4C:2B:92:F7:FD:44:13:7C:09:74:38:2A:86:DA:F4:32:70:62:72:04:0C
        a=fingerprint:sha-512 41:15:CB:3F:63:B6:22:2C:D7:31:CF:93:CA:2A:B7:A3:0F:0C:2E:58:FE:28:79:B1:D0:3F:D6:78:53:01:96:BC:4C:87:D0:03:A7:90:F5:7C:82:D2:6A:91:6A:2B:15:3F:1C:9D:9E:47:91:2B:2D:C2:A0:D7:46:4B:54:D4:0A:90
        a=setup:actpass
        """.replacingNewlinesWithCRLF

    /// baresip1.0-offer-ice-dtls.sdp
    package static let baresipICEDTLSOffer = """
        v=0
        o=- 4110122795 1001356117 IN IP4 192.0.2.2
        s=-
        c=IN IP4 192.0.2.2
        t=0 0
        a=tool:baresip 1.0.0
        a=ice-ufrag:lWdusVE
        a=ice-pwd:6OpDko1xRRBBGqfDLOSNLz7njGSMHZL
        a=setup:actpass
        a=fingerprint:SHA-256 13:D0:80:C3:B8:E6:15:FB:CE:E9:2A:4A:B6:F5:21:74:FB:52:13:13:AA:3F:EE:67:2D:D8:62:96:F2:E2:86:E7
        m=audio 20334 UDP/TLS/RTP/SAVPF 96 101
        c=IN IP4 192.0.2.2
        a=rtpmap:96 opus/48000/2
        a=fmtp:96 stereo=1;sprop-stereo=1;maxaveragebitrate=32000;useinbandfec=1
        a=rtpmap:101 telephone-event/8000
        a=fmtp:101 0-15
        a=sendrecv
        a=label:1
        a=rtcp-rsize
        a=ssrc:1747078217 cname:sip:a@127.0.0.1:5510
        a=rtcp-mux
        a=minptime:20
        a=ptime:20
        a=candidate:c0000202 1 UDP 2113929471 192.0.2.2 20334 typ host
        a=candidate:020000fd 1 UDP 2113929471 fd00::2 20334 typ host
        """.replacingNewlinesWithCRLF

    /// rtpengine10.5-answer-to-webrtc-offer.sdp
    package static let rtpengineAnswer = """
        v=0
        o=- 4288940005 1915292092 IN IP4 127.0.0.1
        s=-
        c=IN IP4 127.0.0.1
        t=0 0
        a=tool:baresip 1.0.0
        m=audio 30010 UDP/TLS/RTP/SAVPF 96 0
        a=label:1
        a=ssrc:3398506510 cname:sip:b@127.0.0.1:5512
        a=minptime:20
        a=mid:0
        a=rtpmap:96 opus/48000/2
        a=fmtp:96 stereo=1;sprop-stereo=1;maxaveragebitrate=32000;useinbandfec=1
        a=rtpmap:0 PCMU/8000
        a=sendrecv
        a=rtcp:30010
        a=rtcp-mux
        a=setup:active
        a=fingerprint:sha-256 BB:5B:52:78:76:83:7E:7C:4E:C3:3F:6F:46:EF:D6:F4:28:FC:4E:BB:9B:F1:D0:F9:DE:EB:A4:AD:5B:0B:02:B4
        a=ptime:20
        a=ice-ufrag:ZIP8TBYc
        a=ice-pwd:EU5wfi1eMOAiskaiHLrZaXJxpd
        a=candidate:RzcnwvqcV0L0STjZ 1 UDP 2130706431 127.0.0.1 30010 typ host
        """.replacingNewlinesWithCRLF

    /// Every sample, by file name.
    package static let all: [(name: String, text: String)] = [
        ("chromium156-offer.sdp", chromiumOffer),
        ("chromium156-offer-relay-only.sdp", chromiumRelayOnlyOffer),
        ("aiortc1.16-offer.sdp", aiortcOffer),
        ("baresip1.0-offer-ice-dtls.sdp", baresipICEDTLSOffer),
        ("rtpengine10.5-answer-to-webrtc-offer.sdp", rtpengineAnswer),
    ]
}

extension String {
    /// SDP lines end in CRLF.
    fileprivate var replacingNewlinesWithCRLF: String { split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n") + "\r\n" }
}
