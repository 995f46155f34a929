import VoiceEmbedded
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent

extension FuzzHarness {
    static let sip: [FuzzHarness] = [
        FuzzHarness(name: "sip-datagram", summary: "a UDP datagram: parse, read the typed headers, answer a malformed one, serialize") { bytes in
            let parser = SIPMessageParser()
            do {
                let message = try parser.parse(datagram: bytes)
                touchHeaders(message)
                // Writing a message out may add what it lacked (Content-Length); after that,
                // parsing and writing again must change nothing.
                let written = message.serialized()
                let again = try parser.parse(datagram: written)
                precondition(again.serialized() == written, "a written message reads back the same")
            } catch let error as SIPParseError {
                _ = SIPCoreResponder().answer(malformed: bytes, error: error, toTag: "fuzz")
            } catch {}
        },
        FuzzHarness(name: "sip-stream", summary: "a TCP/TLS byte stream split at every 7th byte into the framer") { bytes in
            var framer = SIPStreamFramer()
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + 7)
                framer.append(bytes[offset..<end])
                offset = end
                do {
                    while let frame = try framer.next() {
                        if case .message(let message) = frame { touchHeaders(message) }
                    }
                } catch {
                    _ = framer.drainBuffered()
                    return
                }
            }
        },
        FuzzHarness(
            name: "sip-websocket",
            summary: "a listening WebSocket's bytes (after a valid handshake when the first byte is even): frames into SIP"
        ) { bytes in
            guard let first = bytes.first else { return }
            let outcome = SIPWebSocketReplay.listening(Array(bytes.dropFirst()), afterHandshake: first & 1 == 0)
            // A refused peer is closed; nothing it sent after the refusal is delivered.
            precondition(outcome.refusals.isEmpty || outcome.closed, "a refused WebSocket peer is disconnected")
        },
        FuzzHarness(name: "sip-uri", summary: "a SIP/SIPS/tel URI, a name-address, and the other one-line header values") { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if let uri = try? SIPURI(parsing: text) {
                let again = try? SIPURI(parsing: uri.description)
                precondition(again != nil, "a serialized URI parses again: \(uri.description)")
            }
            _ = try? SIPNameAddress(parsing: text)
            _ = try? SIPVia(parsing: text)
            _ = try? SIPCSeq(parsing: text)
            _ = try? SIPContentType(parsing: text)
            if let value = try? SIPSessionExpires(parsing: text) {
                precondition((try? SIPSessionExpires(parsing: value.description)) == value, "a written Session-Expires reads back the same")
            }
            _ = try? SIPSessionExpires.minimumSE(parsing: text)
            if let rack = try? SIPRAck(parsing: text) {
                precondition((try? SIPRAck(parsing: rack.description)) == rack, "a written RAck reads back the same")
            }
            _ = try? SIPRAck.responseNumber(parsing: text)
        },
        FuzzHarness(name: "sdp", summary: "an SDP body: parse, then answer it as an offer and take it as an answer") { bytes in
            guard let description = try? SDPSessionDescription(parsing: bytes) else { return }
            var answerer = SDPOfferAnswer(capabilities: SDPLocalCapabilities(address: "127.0.0.1", port: 40_000))
            _ = try? answerer.receiveOffer(description)
            // The WebRTC side: ICE, DTLS fingerprints, a=setup, rtcp-mux, BUNDLE.
            var webRTC = SDPOfferAnswer(capabilities: FuzzSDP.webRTC(port: 40_004))
            _ = try? webRTC.receiveOffer(description)
            var dtlsOfferer = SDPOfferAnswer(capabilities: FuzzSDP.webRTC(port: 40_006))
            if (try? dtlsOfferer.makeOffer()) != nil { _ = try? dtlsOfferer.receiveAnswer(description) }
            var offerer = SDPOfferAnswer(capabilities: SDPLocalCapabilities(address: "127.0.0.1", port: 40_002))
            if (try? offerer.makeOffer()) != nil { _ = try? offerer.receiveAnswer(description) }
            _ = try? SDPSessionDescription(parsing: description.text)
        },
        FuzzHarness(name: "digest", summary: "WWW-Authenticate challenges, answered; Authorization values, verified") { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if case .digest(let challenge)? = try? SIPAuthChallenge(parsing: text) {
                _ = DigestAuthorization(
                    answering: challenge, username: "alice", password: "secret", method: "INVITE", uri: "sip:bob@h",
                    cnonce: "c", nonceCount: 1
                ).headerValue
            }
            _ = verifier.verify(text, method: "INVITE", now: .zero)
        },
        FuzzHarness(name: "info-body", summary: "INFO bodies: application/dtmf-relay") { bytes in
            _ = try? SIPDTMFRelay(parsing: bytes)
        },
        FuzzHarness(
            name: "sip-redirect",
            summary: "Contact field values of 3xx responses (one per line), followed as a call follows them"
        ) { bytes in
            var redirects = SIPRedirects(original: SIPURI(user: "bob", host: "192.0.2.1"))
            var headers = SIPHeaders()
            for line in bytes.split(separator: 0x0A).prefix(64) { headers.add("Contact", String(decoding: line, as: UTF8.self)) }
            var followed = 0
            while case .success = redirects.redirect(status: 302, contacts: try? headers.contact()) {
                followed += 1
                while redirects.next() != nil {}
            }
            precondition(followed <= SIPRedirects.maximumRedirects, "no more than the limit is followed")
        },
        FuzzHarness(
            name: "sip-transfer",
            summary: "Refer-To, Referred-By and Replaces values (first, second and third line) and a sipfrag body (the rest)"
        ) { bytes in
            let parts = bytes.split(separator: 0x0A, maxSplits: 3, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            let field = { (index: Int) in index < parts.count ? parts[index] : "" }
            if let replaces = try? SIPReplaces(parsing: field(2)) {
                precondition((try? SIPReplaces(parsing: replaces.description)) == replaces, "a written Replaces reads back the same")
            }
            let body = Array((parts.count > 3 ? parts[3] : "").utf8)
            if let status = try? SIPFragmentStatus(parsing: body) {
                precondition((100...699).contains(status.statusCode), "a sipfrag status is a status")
                precondition((try? SIPFragmentStatus(parsing: status.body)) == status, "a written sipfrag reads back the same")
            }
            var headers = SIPHeaders()
            headers.add("Refer-To", field(0))
            headers.add("Referred-By", field(1))
            FuzzTransfer.refer(headers: headers, notifyBody: body)
        },
    ]

    private static let verifier = SIPDigestVerifier(realm: "fuzz", credentials: [SIPAuthCredentials(username: "alice", password: "secret")])

    /// Reads every typed header a user agent reads from a message.
    static func touchHeaders(_ message: SIPMessage) {
        let headers = message.headers
        _ = try? headers.topVia()
        _ = try? headers.cseq()
        _ = try? headers.callID()
        _ = try? headers.from()
        _ = try? headers.to()
        _ = try? headers.via()
        _ = try? headers.contact()
        _ = try? headers.route()
        _ = try? headers.recordRoute()
        _ = try? headers.maxForwards()
        _ = try? headers.contentLength()
        _ = try? headers.contentType()
        _ = try? headers.sessionExpires()
        _ = try? headers.minimumSE()
        _ = try? headers.rseq()
        _ = try? headers.rack()
        if case .request(let request) = message {
            // What a callee answers (422, or the 2xx's session-timer fields) to whatever arrived.
            var timer = SIPSessionTimer(settings: SIPSessionTimer.Settings())
            if timer.refusal(of: request) == nil { _ = timer.answering(request) }
        }
        _ = SIPTraceText.render(message.serialized())
    }
}

/// Capabilities of an agent that offers and answers ICE + DTLS-SRTP.
enum FuzzSDP {
    static func webRTC(port: UInt16) -> SDPLocalCapabilities {
        SDPLocalCapabilities(
            address: "127.0.0.1", port: port, encryption: .automatic(suites: [.aeadAES128GCM, .aesCM128HmacSHA1_80]),
            ice: SDPICEParameters(
                usernameFragment: "evtj", password: "VOkJxbRl1RmTxUk/WvJxBt",
                candidates: [
                    SDPICECandidate(
                        foundation: "1", component: 1, transport: "UDP", priority: 2_130_706_431, address: "127.0.0.1", port: port,
                        kind: .host)
                ], endOfCandidates: true),
            dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Array(repeating: 0xAB, count: 32)))
    }
}
