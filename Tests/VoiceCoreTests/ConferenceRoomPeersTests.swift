import VoiceEmbedded
import VoiceAddress
import Foundation
import VoiceConference
import VoiceMedia
import VoiceNetwork
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// A room hosted by a ``ConferenceServer`` on loopback, in real time, with six participants of
/// three kinds: four SDK clients (Opus; one addressing the room as `conference:standup`), a
/// baresip with Opus, and a baresip that has only G.711 (PCMU at 8 kHz). Each plays its own tone;
/// a Goertzel filter on each one's recording checks that it hears every other tone and not its own.
final class ConferenceRoomPeersTests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    /// A baresip playing a `frequency` tone file in the format its codec needs (`aufile` does not
    /// resample: 48 kHz stereo for Opus, 8 kHz mono for G.711).
    private func baresip(
        _ user: String, frequency: Double, amplitude: Double = 6_000, codecs: [String], channels: Int = 2, sampleRate: Int = 48_000
    ) throws -> BaresipPeer {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-conference")
        let tone = directory + "/tone.wav"
        // baresip ends its call when the file runs out: a minute outlasts the test.
        try BaresipWAVFile.write(TestSignals.multiTone([(frequency, amplitude)], seconds: 60), to: tone, channels: channels, sampleRate: sampleRate)
        var configuration = BaresipConfiguration()
        configuration.user = user
        configuration.audioCodecs = codecs
        configuration.audioFile = tone
        configuration.recordingDirectory = directory
        let peer = try BaresipPeer(configuration: configuration)
        cleanup.append {
            peer.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return peer
    }

    /// Amplitudes of `frequencies` in the last second of a baresip's recording (any sample rate).
    private func heardByBaresip(_ peer: BaresipPeer, _ frequencies: [Double]) throws -> [Double] {
        let recording = try XCTUnwrap(peer.recordings.received.last, "\(peer.configuration.user)'s recording")
        let wav = try BaresipWAVFile.read(recording)
        let samples = wav.channel(0).suffix(wav.sampleRate)
        return frequencies.map { ToneAmplitude.of($0, in: samples, sampleRate: wav.sampleRate) }
    }

    /// A room server on loopback (UDP, or WebSocket listening) with its event recorder; the
    /// address of its room "standup" and its SIP port.
    private func startRoom(webSocket: Bool = false) throws -> (server: ConferenceServer, recorder: ConferenceEventRecorder, room: String, port: Int) {
        let host = try TestVoiceClient("rooms", transport: webSocket ? .ws : .udp) { $0.acceptsWebSocketConnections = webSocket }
        cleanup.append { host.client.shutdown() }
        let recorder = ConferenceEventRecorder()
        let server = ConferenceServer(client: host.client, delegate: recorder, delegateQueue: recorder.queue)
        cleanup.append { server.stop() }
        let started = DispatchSemaphore(value: 0)
        server.start { _ in started.signal() }
        XCTAssertEqual(started.wait(timeout: .now() + 5), .success)
        let port = host.client.localEndpoint.port
        return (server, recorder, "sip:standup@127.0.0.1:\(port);conference", port)
    }

    /// Six talkers of three kinds (SDK clients, baresip with Opus, baresip with G.711) and a silent
    /// baresip listening through the shared encode: each hears every other, and nobody itself.
    func testSixTalkersOfThreeKindsAndAListenerEachHearTheOthersAndNeverThemselves() throws {
        try TestPrerequisites.installed("baresip")
        let (server, _, room, port) = try startRoom()

        var sdk: [(name: String, frequency: Double, client: TestVoiceClient, delegate: RecordingCallDelegate)] = []
        for (index, (name, frequency)) in [("alice", 500.0), ("bob", 700.0), ("carol", 1_100.0), ("dave", 1_500.0)].enumerated() {
            let client = try TestVoiceClient(name, signal: TestSignals.multiTone([(frequency, 6_000)], seconds: 1)) { configuration in
                // alice addresses the room as an app would: `conference:standup`, through the server as her proxy.
                if index == 0 { configuration.outboundProxy = try? SIPServerAddress("sip:127.0.0.1:\(port)") }
            }
            cleanup.append { client.client.shutdown() }
            let delegate = RecordingCallDelegate()
            _ = client.connect(to: index == 0 ? "conference:standup" : room, delegate: delegate)
            sdk.append((name, frequency, client, delegate))
        }
        let opusPhone = try baresip("erin", frequency: 900, codecs: ["opus/48000/2"])
        let g711Phone = try baresip("frank", frequency: 1_300, codecs: ["PCMU/8000/1"], channels: 1, sampleRate: 8_000)
        // A seventh, silent: a baresip that only listens, so its leg hears the room through the
        // shared encode (everyone else talks all the time and encodes its own mix).
        let listener = try baresip("gina", frequency: 1_000, amplitude: 0, codecs: ["opus/48000/2"])
        try opusPhone.control.dial(room)
        try g711Phone.control.dial(room)
        try listener.control.dial(room)
        for leg in sdk { XCTAssertEqual(leg.delegate.wait(for: 2), [.ringing, .connected], leg.name) }
        for phone in [opusPhone, g711Phone, listener] {
            do {
                try phone.control.waitForEvent(.callEstablished)
            } catch {
                XCTFail("\(phone.configuration.user): \(error); log:\n\(phone.process.logTail())")
                throw error
            }
        }
        XCTAssertTrue(PollingWait.until(timeout: 5) { server.participants(in: "standup").count == 7 }, "\(server.participants(in: "standup"))")
        // Three seconds of the room; every recording has at least its last second of it.
        let sharedBefore = server.encodingFigures.shared
        Thread.sleep(forTimeInterval: 3)
        XCTAssertGreaterThan(server.encodingFigures.shared - sharedBefore, 100, "gina's leg took the shared encode")
        XCTAssertTrue(g711Phone.waitForReceivedAudio(.seconds(2), timeout: .seconds(5), bytesPerSecond: 16_000), "frank's recording")
        XCTAssertTrue(opusPhone.waitForReceivedAudio(.seconds(2), timeout: .seconds(5)), "erin's recording")

        let tones: [(String, Double)] = sdk.map { ($0.name, $0.frequency) } + [("erin", 900), ("frank", 1_300)]
        var heard: [String: [Double]] = [:]
        for leg in sdk {
            let recorded = leg.client.device.recordedSamples.suffix(48_000)
            heard[leg.name] = tones.map { ToneAmplitude.of($0.1, in: recorded) }
        }
        heard["erin"] = try heardByBaresip(opusPhone, tones.map(\.1))
        heard["frank"] = try heardByBaresip(g711Phone, tones.map(\.1))
        XCTAssertTrue(listener.waitForReceivedAudio(.seconds(2), timeout: .seconds(5)), "gina's recording")
        heard["gina"] = try heardByBaresip(listener, tones.map(\.1))
        var floors: [String: [Double]] = [:]
        let between: [Double] = [600, 800, 1_000, 1_200, 1_400]
        for leg in sdk { floors[leg.name] = between.map { ToneAmplitude.of($0, in: leg.client.device.recordedSamples.suffix(48_000)) } }
        floors["erin"] = try heardByBaresip(opusPhone, between)
        floors["frank"] = try heardByBaresip(g711Phone, between)
        floors["gina"] = try heardByBaresip(listener, between)
        for (listener, amplitudes) in heard.sorted(by: { $0.key < $1.key }) {
            let report = zip(tones, amplitudes).map { "\($0.0.0) \(Int($0.1))" }.joined(separator: ", ")
            print("conference: \(listener) hears \(report); between the tones \(floors[listener]!.map { Int($0) })")
            for ((talker, _), amplitude) in zip(tones, amplitudes) {
                if talker == listener {
                    // The codecs' noise floor: the loudest bin between the tones (measured up to
                    // 160 on a baresip's Opus decode; own tones 10-137 over several runs).
                    let floor = floors[listener]!.max()!
                    XCTAssertLessThan(amplitude, max(200, 2 * floor), "\(listener) hears itself above the noise floor: \(report)")
                } else {
                    XCTAssertGreaterThan(amplitude, 1_000, "\(listener) misses \(talker): \(report)")
                }
            }
        }
        let codecs = try server.participants(in: "standup").map { participant in
            try onCallLoop(try XCTUnwrap(server.call(of: participant))) { $0.media?.stream?.stats.codec ?? "-" }
        }
        XCTAssertEqual(codecs.filter { $0 == "PCMU" }.count, 1, "frank's leg is G.711: \(codecs)")
        XCTAssertEqual(codecs.filter { $0 == "opus" }.count, 6, "\(codecs)")
        print("conference: mixing periods started a period late: \(server.lateMixingPeriods)")
    }

    /// A participant's host renumbers mid-call (127.0.0.1 → 127.0.0.2, as in the network-move
    /// tests): its call re-INVITEs from the new address and stays in the room: the server keeps
    /// it (no left event), the others hear its tone again and it hears theirs.
    func testAParticipantsNetworkMoveKeepsItInTheRoom() throws {
        let (server, recorder, room, _) = try startRoom()
        var legs: [(name: String, frequency: Double, client: TestVoiceClient, delegate: RecordingCallDelegate)] = []
        for (name, frequency) in [("alice", 500.0), ("bob", 700.0), ("carol", 1_100.0)] {
            let client = try TestVoiceClient(name, signal: TestSignals.multiTone([(frequency, 6_000)], seconds: 1)) { configuration in
                if name == "alice" { configuration.addressSelection = .automatic }
            }
            cleanup.append { client.client.shutdown() }
            let delegate = RecordingCallDelegate()
            _ = client.connect(to: room, delegate: delegate)
            legs.append((name, frequency, client, delegate))
        }
        for leg in legs { XCTAssertEqual(leg.delegate.wait(for: 2), [.ringing, .connected], leg.name) }
        XCTAssertTrue(PollingWait.until(timeout: 5) { server.participants(in: "standup").count == 3 })
        let alice = legs[0].client.client
        let moved = NetworkCandidate(
            address: IPAddress("127.0.0.2")!, prefixLength: 8, interfaceName: "lo", interfaceIndex: 1, type: .loopback, defaultRouteMetric: nil)
        alice.onLoop { alice.networkChanged([moved]) }
        XCTAssertEqual(
            legs[0].delegate.wait(for: 4), [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .reconnected])
        XCTAssertEqual(try alice.agent.currentAdvertisedHost.wait(), "127.0.0.2")
        // Two seconds at the new address: the last one must be the room as before.
        for leg in legs { leg.client.device.clearRecording() }
        Thread.sleep(forTimeInterval: 2)
        for leg in legs {
            let recorded = leg.client.device.recordedSamples.suffix(48_000)
            let amplitudes = legs.map { ToneAmplitude.of($0.frequency, in: recorded) }
            let report = zip(legs, amplitudes).map { "\($0.0.name) \(Int($0.1))" }.joined(separator: ", ")
            print("conference after alice's move: \(leg.name) hears \(report)")
            for (other, amplitude) in zip(legs, amplitudes) where other.name != leg.name {
                XCTAssertGreaterThan(amplitude, 1_000, "\(leg.name) misses \(other.name) after the move: \(report)")
            }
            XCTAssertLessThan(amplitudes[legs.firstIndex { $0.name == leg.name }!], 200, "\(leg.name) hears itself: \(report)")
        }
        XCTAssertEqual(Set(server.participants(in: "standup").compactMap(\.from)), ["alice", "bob", "carol"])
        XCTAssertFalse(recorder.events.contains { if case .participantLeft = $0 { true } else { false } }, "\(recorder.events)")
    }

    /// A browser in the room: headless Chromium's softphone page calls the room over the
    /// server's own WebSocket listener, with WebRTC media (ICE, DTLS-SRTP, Opus), and an SDK
    /// client calls it too. Chromium maps RFC 6464 levels in its offer and sends them in every
    /// packet: the room reads them (the browser's talking comes from them), and sends its own,
    /// which the browser's getSynchronizationSources reports; and the two hear each other.
    func testABrowserInTheRoomAnnouncesItsLevelsAndTheRoomReadsThem() throws {
        try TestPrerequisites.installed("chromium")
        let (server, recorder, room, port) = try startRoom(webSocket: true)

        let tone = TestSignals.multiTone([(700, 6_000)], seconds: 1)
        let alice = try TestVoiceClient("alice", signal: tone, transport: .ws)
        cleanup.append { alice.client.shutdown() }
        let aliceDelegate = RecordingCallDelegate()
        _ = alice.connect(to: room, delegate: aliceDelegate)
        XCTAssertEqual(aliceDelegate.wait(for: 2), [.ringing, .connected])

        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "softphone-conference")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        let speech = TestSignals.speechLike(seconds: 2)
        try BaresipWAVFile.write(speech, to: directory + "/speech.wav")
        let phone = try WebRTCPeer.sipPhone(
            webSocketURL: "ws://127.0.0.1:\(port)/", user: "carol", password: "unused", realm: "127.0.0.1",
            calling: room, play: directory + "/speech.wav", seconds: 4, registers: false)
        cleanup.append { phone.stop() }
        XCTAssertTrue(
            PollingWait.until(timeout: 30) { server.participants(in: "standup").contains { $0.from == "carol" } }, "page:\n\(phone.logTail())")
        let browser = try XCTUnwrap(server.participants(in: "standup").first { $0.from == "carol" })
        let browserCall = try XCTUnwrap(server.call(of: browser))
        let levels = Locked<ReceivedAudioLevel?>(nil)
        browserCall.receivedAudioLevel { source in levels.withLock { $0 = source } }
        XCTAssertTrue(PollingWait.until(timeout: 5) { levels.withLock { $0 } != nil })
        XCTAssertTrue(
            PollingWait.until(timeout: 10) { (levels.withLock { $0 }?.read().count ?? 0) > 50 },
            "Chromium's packets carry RFC 6464 levels: \(String(describing: levels.withLock { $0 }?.read()))")
        XCTAssertTrue(PollingWait.until(timeout: 10) { recorder.events.contains(.talking(browser, true)) }, "\(recorder.events)")
        XCTAssertTrue(PollingWait.until(timeout: 20) { FileManager.default.fileExists(atPath: phone.recording) }, "page:\n\(phone.logTail())")
        let stats = try XCTUnwrap(phone.waitForStats(timeout: 30), "page:\n\(phone.logTail())")
        XCTAssertNil(stats["error"], "\(stats)")
        // The room's packets carry RFC 6464 levels too: the browser sees how loud its mix is
        // (alice's tone: 6,000 of amplitude, 18 dB under full scale, 0.13 linear).
        let sources = try XCTUnwrap(stats["synchronizationSources"] as? [[String: Any]], "\(stats)")
        let level = try XCTUnwrap(sources.first?["audioLevel"] as? Double, "the room sent no level: \(sources)")
        XCTAssertEqual(level, 0.13, accuracy: 0.05, "the level of what the browser hears")
        let heardByBrowser = try BaresipWAVFile.read(phone.recording).channel(0)
        XCTAssertGreaterThan(ToneAmplitude.of(700, in: heardByBrowser.suffix(48_000)), 1_000, "the browser hears alice")
        let atAlice = SpectralSimilarity(playedInALoop: speech, in: Array(alice.device.recordedSamples.suffix(96_000)))
        XCTAssertGreaterThan(atAlice.score, 0.75, "alice hears the browser: \(atAlice)")
    }
}
