#if canImport(Glibc)
    import Glibc
#endif
import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceTestAudio
import VoiceMediaTypes

/// Floods at a listening client, each bounded in count and time: afterwards the process's
/// memory, descriptors and threads are back near where they were, and a normal call connects
/// with audio both ways.
final class VoiceClientFloodTests: XCTestCase {
    private let aliceTone = ConnectedCallPair.tone(440)
    private let bobTone = ConnectedCallPair.tone(660)

    /// What the process holds: resident memory (KiB), open descriptors, threads.
    struct Footprint: CustomStringConvertible {
        var rssKiB = 0
        var fds = 0
        var threads = 0

        static func now() -> Footprint {
            var f = Footprint()
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            for line in status.split(separator: "\n") {
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if line.hasPrefix("VmRSS:"), parts.count > 1 { f.rssKiB = Int(parts[1]) ?? 0 }
                if line.hasPrefix("Threads:"), parts.count > 1 { f.threads = Int(parts[1]) ?? 0 }
            }
            f.fds = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
            return f
        }

        var description: String { "RSS \(rssKiB / 1024) MiB, \(fds) fds, \(threads) threads" }
    }

    /// Bob listens and answers calls from alice only (others ring until they give up).
    private func makeBob(transport: SIPTransportProtocol = .udp, acceptAll: Bool = false, configure: (inout VoiceClientConfiguration) -> Void = { _ in })
        throws -> (TestVoiceClient, RecordingCallDelegate, Locked<[Call]>)
    {
        let bob = try TestVoiceClient("bob", signal: bobTone, transport: transport, configure: configure)
        let delegate = RecordingCallDelegate()
        let accepted = Locked<[Call]>([])
        let notifications = bob.listen()
        notifications.onInvite.withLock {
            $0 = { invite in
                guard acceptAll || (invite.from ?? "").contains("alice") else { return }
                let call = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = delegate.queue }, delegate: delegate)
                accepted.withLock { $0.append(call) }
            }
        }
        return (bob, delegate, accepted)
    }

    /// After a flood: the footprint is near `baseline`, and alice gets a call through with
    /// audio both ways.
    private func assertRecovered(
        bob: TestVoiceClient, baseline: Footprint, transport: SIPTransportProtocol = .udp, unencrypted: Bool = false,
        label: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // A call still ringing holds its reserved media ports (an RTP and an RTCP socket), as
        // pjsip and baresip hold a ringing call's media transport; the flood's share of ringing
        // calls is bounded by the per-source limit.
        func holding() -> Int { (try? bob.client.agent.eventLoop.submit { bob.client.agent.callsHoldingMediaPorts }.wait()) ?? 0 }
        let settled = PollingWait.until(timeout: 10) {
            let now = Footprint.now()
            return now.fds <= baseline.fds + 8 + 2 * holding() && now.threads <= baseline.threads + 4
        }
        let after = Footprint.now()
        let held = holding()
        print("\(label): before \(baseline); after \(after), \(held) calls holding media ports")
        XCTAssertTrue(settled, "\(label): descriptors and threads back near baseline: \(baseline) → \(after), \(held) calls holding media ports", file: file, line: line)
        XCTAssertLessThanOrEqual(held, bob.client.configuration.limits.maximumRingingCallsPerSource, "bounded by the flood's ringing share", file: file, line: line)
        XCTAssertLessThan(after.rssKiB - baseline.rssKiB, 96 * 1024, "\(label): memory back near baseline", file: file, line: line)
        let alice = try TestVoiceClient("alice", signal: aliceTone, transport: transport) { if unencrypted { $0.mediaSecurity = .unencrypted } }
        defer { alice.client.shutdown() }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2, timeout: 15).last, .connected, "\(label): a normal call connects", file: file, line: line)
        alice.device.clearRecording()
        bob.device.clearRecording()
        _ = PollingWait.until(timeout: 10) { alice.device.recordedSamples.count >= 96_000 && bob.device.recordedSamples.count >= 96_000 }
        // Window by window: a loaded machine shifts a real-time call's timeline now and then.
        let atBob = SpectralSimilarity(playedInALoop: aliceTone, in: bob.device.recordedSamples)
        let atAlice = SpectralSimilarity(playedInALoop: bobTone, in: alice.device.recordedSamples)
        XCTAssertGreaterThan(atBob.score, 0.8, "\(label): bob hears alice \(atBob)", file: file, line: line)
        XCTAssertGreaterThan(atAlice.score, 0.8, "\(label): alice hears bob \(atAlice)", file: file, line: line)
        call.disconnect()
        _ = delegate.wait(for: 3, timeout: 5)
    }

    /// An INVITE whose offer bob can answer: SDES-SRTP (loopback may carry keys), or plain RTP
    /// for a bob that allows it. (One he never could answer is refused with 488 at once.)
    private func invite(_ i: Int, from port: Int, to bob: TestVoiceClient, sdpPort: Int = 4_000) -> [UInt8] {
        let plain = bob.client.configuration.mediaSecurity == .unencrypted
        let sdp =
            "v=0\r\no=- \(i) 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
            + "m=audio \(sdpPort) RTP/\(plain ? "AVP" : "SAVP") 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n"
            + (plain ? "" : "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd\r\n")
        let text =
            "INVITE \(bob.address) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.2:\(port);branch=z9hG4bKf\(i)x\(port)\r\n"
            + "Max-Forwards: 70\r\nTo: <\(bob.address)>\r\nFrom: <sip:flood@127.0.0.2>;tag=f\(i)\r\n"
            + "Call-ID: flood\(i)x\(port)@127.0.0.2\r\nCSeq: 1 INVITE\r\nContact: <sip:flood@127.0.0.2:\(port)>\r\n"
            + "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n" + sdp
        return Array(text.utf8)
    }

    private func bobSIP(_ bob: TestVoiceClient) throws -> SocketAddress {
        try SocketAddress(host: "127.0.0.1", port: Int(bob.client.localEndpoint.port))
    }

    /// Reads what waits on `socket` now, as texts.
    private func drain(_ socket: UDPSocket) -> [String] {
        var out: [String] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        buffer.withUnsafeMutableBytes { raw in
            while let n = socket.receive(into: raw) { out.append(String(decoding: raw.prefix(n), as: UTF8.self)) }
        }
        return out
    }

    func testTwoThousandINVITEsThatNeverACK() throws {
        let (bob, _, _) = try makeBob()
        defer { bob.client.shutdown() }
        let baseline = Footprint.now()
        let attacker = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        defer { attacker.close() }
        let target = try bobSIP(bob)
        var answers: [String: Int] = [:]
        for i in 0..<2_000 {
            _ = invite(i, from: attacker.localAddress.port, to: bob).withUnsafeBytes { attacker.send($0, to: target) }
            if i % 50 == 49 {
                Thread.sleep(forTimeInterval: 0.02)
                for reply in drain(attacker) { answers[String(reply.prefix(11)), default: 0] += 1 }
            }
        }
        // The last replies (a loaded machine answers later): until those asked for below are in,
        // then 0.3 s more, in which any ringing beyond the share would show too.
        let ringingShare = bob.client.configuration.limits.maximumRingingCallsPerSource
        _ = PollingWait.until(timeout: 10, every: 0.05) {
            for reply in drain(attacker) { answers[String(reply.prefix(11)), default: 0] += 1 }
            return answers["SIP/2.0 180", default: 0] >= ringingShare && answers["SIP/2.0 503", default: 0] > 300
        }
        Thread.sleep(forTimeInterval: 0.3)
        for reply in drain(attacker) { answers[String(reply.prefix(11)), default: 0] += 1 }
        print("2,000 INVITEs: \(answers)")
        XCTAssertGreaterThan(answers["SIP/2.0 503", default: 0], 300, "refused without a call: \(answers)")
        XCTAssertNil(answers["SIP/2.0 486"], "a full server is not a busy user: \(answers)")
        XCTAssertEqual(answers["SIP/2.0 180", default: 0], ringingShare, "the source's share of ringing calls")
        try assertRecovered(bob: bob, baseline: baseline, label: "2,000 unACKed INVITEs")
    }

    func testFiftyThousandMalformedDatagrams() throws {
        let (bob, _, _) = try makeBob()
        defer { bob.client.shutdown() }
        let baseline = Footprint.now()
        let attacker = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        defer { attacker.close() }
        let target = try bobSIP(bob)
        var rng = SplitMix64(seed: 10)
        let base = invite(0, from: attacker.localAddress.port, to: bob)
        for i in 0..<50_000 {
            var bytes = base
            switch rng.next() % 4 {
            case 0: for _ in 0..<(1 + Int(rng.next() % 8)) { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            case 1: bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count))))
            case 2: bytes = (0..<Int(rng.next() % 1400)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            default: bytes.insert(contentsOf: Array("X-\(i): \(String(repeating: "a", count: Int(rng.next() % 3000)))\r\n".utf8), at: 60)
            }
            _ = bytes.withUnsafeBytes { attacker.send($0, to: target) }
            if i % 100 == 99 {
                Thread.sleep(forTimeInterval: 0.005)
                _ = drain(attacker)
            }
        }
        try assertRecovered(bob: bob, baseline: baseline, label: "50,000 malformed datagrams")
    }

    func testFiveHundredTricklingTCPConnections() throws {
        let (bob, _, _) = try makeBob(transport: .tcp) { $0.transportSettings.messageCompletionTimeout = .seconds(2) }
        defer { bob.client.shutdown() }
        let baseline = Footprint.now()
        let port = Int(bob.client.localEndpoint.port)
        var tricklers: [RawTCPClient] = []
        for i in 0..<500 {  // 25 from each of 20 addresses, under the per-address limit
            if let c = RawTCPClient(from: "127.0.1.\(1 + i % 20)", to: "127.0.0.1", port: port) { tricklers.append(c) }
        }
        XCTAssertEqual(tricklers.count, 500)
        // Cut at 2 s (a loaded machine may take a little longer to notice): well before the
        // default deadline of 10 s, so it is the configured one that cut them.
        let started = Date()
        var cut = 0
        while Date().timeIntervalSince(started) < 8, cut < 500 {
            cut = 0
            for c in tricklers where c.sendNow(Array("O".utf8)) < 0 { cut += 1 }
            Thread.sleep(forTimeInterval: 0.5)
        }
        XCTAssertEqual(cut, 500, "every trickler was closed at the message deadline")
        tricklers.removeAll()
        try assertRecovered(bob: bob, baseline: baseline, transport: .tcp, label: "500 trickling TCP connections")
    }

    func testATCPClientThatNeverReads() throws {
        let (bob, _, _) = try makeBob(transport: .tcp)
        defer { bob.client.shutdown() }
        let baseline = Footprint.now()
        let hog = try XCTUnwrap(RawTCPClient(from: "127.0.0.2", to: "127.0.0.1", port: Int(bob.client.localEndpoint.port), receiveBuffer: 16 << 10))
        let started = Date()
        var i = 0
        var taken = 0
        while Date().timeIntervalSince(started) < 3 {
            var batch: [UInt8] = []
            for _ in 0..<32 {
                i += 1
                batch += Array(
                    ("OPTIONS \(bob.address) SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.2:5060;branch=z9hG4bKo\(i)\r\nMax-Forwards: 70\r\n"
                        + "To: <\(bob.address)>\r\nFrom: <sip:hog@127.0.0.2>;tag=h\r\nCall-ID: hog\(i)\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").utf8)
            }
            let n = hog.sendNow(batch)
            if n < 0 { break }
            taken += n
            if n < batch.count { Thread.sleep(forTimeInterval: 0.01) }
        }
        print("a TCP client that never reads: \(taken / 1024) KiB taken in 3 s")
        try assertRecovered(bob: bob, baseline: baseline, transport: .tcp, label: "a TCP client that never reads")
    }

    func testTwoHundredACKedCallsBeyondTheCallLimit() throws {
        let (bob, _, accepted) = try makeBob(acceptAll: true) {
            $0.mediaSecurity = .unencrypted
            $0.limits.maximumCalls = 32
            $0.limits.maximumRingingCallsPerSource = 200
        }
        defer { bob.client.shutdown() }
        let baseline = Footprint.now()
        let tasksBefore = MediaEngine.shared.stats.tasks
        let attacker = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        defer { attacker.close() }
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))  // where the answered calls' media goes
        defer { sink.close() }
        let target = try bobSIP(bob)
        let parser = SIPMessageParser()
        var answered: [SIPResponse] = []
        var refused = 0
        func collect() {
            for text in drain(attacker) {
                guard case .response(let response)? = try? parser.parse(datagram: Array(text.utf8)) else { continue }
                if response.statusCode == 200, !answered.contains(where: { (try? $0.headers.callID()) == (try? response.headers.callID()) }) {
                    answered.append(response)
                    // ACK it: the call is up as far as bob knows.
                    let to = (try? response.headers.single("To")) ?? ""
                    let callID = (try? response.headers.callID()) ?? ""
                    let ack =
                        "ACK \(bob.address) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.2:\(attacker.localAddress.port);branch=z9hG4bKack\(answered.count)\r\n"
                        + "Max-Forwards: 70\r\nTo: \(to)\r\nFrom: <sip:flood@127.0.0.2>;tag=\((try? response.headers.from().tag ?? "") ?? "")\r\n"
                        + "Call-ID: \(callID)\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n"
                    _ = Array(ack.utf8).withUnsafeBytes { attacker.send($0, to: target) }
                } else if response.statusCode == 503 {
                    refused += 1
                }
            }
        }
        for i in 0..<200 {
            _ = invite(i, from: attacker.localAddress.port, to: bob, sdpPort: sink.localAddress.port).withUnsafeBytes { attacker.send($0, to: target) }
            Thread.sleep(forTimeInterval: 0.01)
            collect()
        }
        _ = PollingWait.until(timeout: 5) {
            collect()
            return answered.count + refused >= 200
        }
        let limit = bob.client.configuration.limits.maximumCalls
        print("200 ACKed INVITEs: \(answered.count) answered, \(refused) refused, media tasks \(MediaEngine.shared.stats.tasks - tasksBefore)")
        XCTAssertEqual(answered.count, limit, "calls up to the limit, no more")
        XCTAssertGreaterThanOrEqual(refused, 200 - limit, "refused with 503 (the server is full, the user not busy)")
        XCTAssertLessThanOrEqual(MediaEngine.shared.stats.tasks - tasksBefore, limit, "no more media streams than calls")
        // The flood hangs up; bob's streams stop.
        for call in accepted.withLock({ $0 }) { call.disconnect() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { MediaEngine.shared.stats.tasks <= tasksBefore }, "every stream stopped")
        try assertRecovered(bob: bob, baseline: baseline, unencrypted: true, label: "200 ACKed calls beyond the limit")
    }
}
