import VoiceEmbedded
import Dispatch
import Foundation
import VoiceConference
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import XCTest

@testable import VoiceCore

/// Records a conference server's events.
final class ConferenceEventRecorder: ConferenceServerDelegate {
    let queue = DispatchQueue(label: "test.conference.events")
    private let seen = Locked<[ConferenceEvent]>([])
    var events: [ConferenceEvent] { seen.withLock { $0 } }
    func conferenceServer(_ server: ConferenceServer, didReport event: ConferenceEvent) {
        seen.withLock { $0.append(event) }
    }
    var joined: [ConferenceParticipant] {
        events.compactMap { if case .participantJoined(let p) = $0 { p } else { nil } }
    }
}

/// Rooms hosted in-process by a ``ConferenceServer`` on a ``VoiceClient``, called by SDK clients,
/// in virtual time with their real media (Opus or G.711, SRTP, jitter buffers): each caller
/// plays its own tone, and a Goertzel filter on each caller's recording tells who it hears.
final class ConferenceRoomTests: VirtualTimeTestCase {
    private var clients: [TestVoiceClient] = []
    private var servers: [ConferenceServer] = []

    override func tearDown() {
        for server in servers { server.stop() }
        for client in clients { client.client.shutdown() }
        servers = []
        clients = []
        super.tearDown()
    }

    /// A server on its own client; returns it, its recorder and its SIP host.
    private func startServer(_ options: ConferenceServerOptions = ConferenceServerOptions()) throws -> (ConferenceServer, ConferenceEventRecorder, String) {
        let host = try TestVoiceClient("rooms", world: world)
        clients.append(host)
        let recorder = ConferenceEventRecorder()
        world.watch(recorder.queue)
        let server = ConferenceServer(client: host.client, options: options, delegate: recorder, delegateQueue: recorder.queue)
        servers.append(server)
        let started = Locked<VoiceError??>(nil)
        server.start { error in started.withLock { $0 = .some(error) } }
        XCTAssertTrue(PollingWait.until(timeout: 2) { started.withLock { $0 } != nil })
        return (server, recorder, host.client.localEndpoint.host)
    }

    /// A caller playing a steady `frequency` tone.
    private func caller(_ name: String, frequency: Double) throws -> TestVoiceClient {
        let client = try TestVoiceClient(name, signal: TestSignals.multiTone([(frequency, 6_000)], seconds: 1), world: world)
        clients.append(client)
        return client
    }

    private struct Leg {
        let client: TestVoiceClient
        let frequency: Double
        let call: Call
        let delegate: RecordingCallDelegate
    }

    private func join(_ client: TestVoiceClient, frequency: Double, room: String, host: String, codecs: [AudioCodec]? = nil) -> Leg {
        let delegate = RecordingCallDelegate()
        world.watch(delegate.queue)
        let call = client.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token(client.client.configuration.identity)) { builder in
                builder.params = ["To": "sip:\(room)@\(host):5060;conference"]
                builder.delegateQueue = delegate.queue
                if let codecs { builder.preferredAudioCodecs = codecs }
            },
            delegate: delegate)
        return Leg(client: client, frequency: frequency, call: call, delegate: delegate)
    }

    /// The amplitude of each of `frequencies` in the last `seconds` `leg` heard.
    private func heard(_ leg: Leg, _ frequencies: [Double], seconds: Double = 0.5) -> [Double] {
        let recorded = leg.client.device.recordedSamples.suffix(Int(48_000 * seconds))
        return frequencies.map { ToneAmplitude.of($0, in: recorded) }
    }

    /// Checks that each leg hears every other leg's tone (amplitude ≥ 1,000 of the 6,000 played;
    /// measured 5,500–6,400) and not its own, nor any in `silent` (< 150, 32 dB below a talker:
    /// measured 4–46, the codecs' noise floor at those frequencies).
    private func checkEachHearsTheOthers(_ legs: [Leg], silent: [Double] = [], file: StaticString = #filePath, line: UInt = #line) {
        let all = legs.map(\.frequency)
        for leg in legs {
            let amplitudes = heard(leg, all + silent)
            let report = zip(all + silent, amplitudes).map { "\(Int($0)) Hz: \(Int($1))" }.joined(separator: ", ")
            if ProcessInfo.processInfo.environment["CONF_DEBUG"] != nil { print("\(leg.client.client.configuration.identity): \(report)") }
            for (frequency, amplitude) in zip(all + silent, amplitudes) {
                if frequency == leg.frequency || silent.contains(frequency) {
                    XCTAssertLessThan(amplitude, 150, "\(leg.client.client.configuration.identity) hears \(Int(frequency)) Hz: \(report)", file: file, line: line)
                } else {
                    XCTAssertGreaterThan(amplitude, 1_000, "\(leg.client.client.configuration.identity) misses \(Int(frequency)) Hz: \(report)", file: file, line: line)
                }
            }
        }
    }

    func testEachParticipantHearsEveryOtherAndNeverItselfAcrossJoinsLeavesMuteAndRemove() throws {
        let (server, recorder, host) = try startServer()
        let tones: [(String, Double)] = [("alice", 500), ("bob", 700), ("carol", 1_100), ("dave", 1_500)]
        var legs = try tones.map { name, frequency in join(try caller(name, frequency: frequency), frequency: frequency, room: "standup", host: host) }
        // A G.711-only leg: its own codec and RTP clock (8 kHz) in the same mix.
        legs.append(join(try caller("erin", frequency: 900), frequency: 900, room: "standup", host: host, codecs: [.pcmu]))
        for leg in legs { XCTAssertEqual(leg.delegate.wait(for: 2), [.ringing, .connected], leg.client.client.configuration.identity) }
        PollingWait.sleep(2)
        XCTAssertEqual(server.rooms, ["standup"])
        XCTAssertEqual(Set(server.participants(in: "standup").compactMap(\.from)), ["alice", "bob", "carol", "dave", "erin"])
        checkEachHearsTheOthers(legs)
        XCTAssertEqual(try onCallLoop(legs[4].call) { $0.media?.stream?.stats.codec }, "PCMU", "erin's leg is G.711")
        XCTAssertEqual(try onCallLoop(legs[0].call) { $0.media?.stream?.stats.codec }, "opus")
        let participants = server.participants(in: "standup")
        XCTAssertTrue(participants.allSatisfy { server.isTalking($0) }, "all five talk")

        // Mute carol: nobody hears 1,100 Hz; she still hears the others.
        let carol = try XCTUnwrap(participants.first { $0.from == "carol" })
        server.setMuted(true, participant: carol)
        PollingWait.sleep(1)
        XCTAssertTrue(server.isMuted(carol))
        XCTAssertFalse(server.isTalking(carol), "a muted participant is silent")
        checkEachHearsTheOthers(legs.filter { $0.frequency != 1_100 }, silent: [1_100])
        XCTAssertGreaterThan(heard(legs[2], [500])[0], 1_000, "carol still hears alice")
        server.setMuted(false, participant: carol)
        PollingWait.sleep(1)
        checkEachHearsTheOthers(legs)

        // bob hangs up and frank joins with 1,300 Hz: the tones follow.
        legs[1].call.disconnect()
        XCTAssertEqual(legs[1].delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        let frank = join(try caller("frank", frequency: 1_300), frequency: 1_300, room: "standup", host: host)
        XCTAssertEqual(frank.delegate.wait(for: 2), [.ringing, .connected])
        legs[1] = frank
        PollingWait.sleep(1.5)
        checkEachHearsTheOthers(legs, silent: [700])

        // The server removes dave: his call ends, the others stop hearing him.
        let dave = try XCTUnwrap(server.participants(in: "standup").first { $0.from == "dave" })
        server.remove(dave)
        XCTAssertEqual(legs[3].delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        legs.remove(at: 3)
        PollingWait.sleep(1)
        checkEachHearsTheOthers(legs, silent: [700, 1_500])

        // The same events come in `events`, as an AsyncSequence, from the server's start.
        let streamed = Locked<[ConferenceEvent]>([])
        let reader = Task {
            for await event in server.events {
                streamed.withLock { $0.append(event) }
                if streamed.withLock({ $0.count }) == 3 { break }
            }
        }
        XCTAssertTrue(PollingWait.until(timeout: 2) { streamed.withLock { $0.count } == 3 })
        reader.cancel()
        XCTAssertEqual(streamed.withLock { $0 }, Array(recorder.events.prefix(3)))

        // Events, in order per participant.
        let events = recorder.events
        XCTAssertEqual(events.first, .roomCreated(room: "standup"))
        XCTAssertEqual(Set(recorder.joined.compactMap(\.from)), ["alice", "bob", "carol", "dave", "erin", "frank"])
        XCTAssertTrue(events.contains(.muted(carol, true)) && events.contains(.muted(carol, false)))
        XCTAssertTrue(events.contains(.participantLeft(dave, error: nil)))
        XCTAssertTrue(events.contains { if case .participantLeft(let p, nil) = $0 { p.from == "bob" } else { false } })
        XCTAssertTrue(events.contains(.talking(carol, false)), "carol stopped talking when muted")
        XCTAssertTrue(events.contains(.talking(carol, true)))

        // Ending the room hangs everybody up.
        server.endRoom("standup")
        for leg in legs { XCTAssertEqual(leg.delegate.waitForEnd().last, .disconnected(nil)) }
        XCTAssertEqual(server.rooms, [])
        XCTAssertTrue(PollingWait.until(timeout: 1) { recorder.events.last == .roomEnded(room: "standup") })
    }

    /// Silent participants hear the room through one shared Opus encode per frame phase, packetized
    /// and protected by each of their legs; they hear every talker, and the talkers (on encodes
    /// of their own) still never hear themselves.
    func testListenersOnTheSharedEncodeHearEveryTalker() throws {
        let (server, _, host) = try startServer()
        let tones: [(String, Double)] = [("alice", 500), ("bob", 700), ("carol", 1_100)]
        let talkers = try tones.map { name, frequency in join(try caller(name, frequency: frequency), frequency: frequency, room: "town", host: host) }
        let listeners = try (0..<4).map { index in
            let client = try TestVoiceClient("listener\(index)", signal: TestSignals.multiTone([], seconds: 1), world: world)
            clients.append(client)
            return join(client, frequency: 0, room: "town", host: host)
        }
        for leg in talkers + listeners { XCTAssertEqual(leg.delegate.wait(for: 2), [.ringing, .connected]) }
        // The room's mix is recorded meanwhile: every talker in it.
        let path = NSTemporaryDirectory() + "room-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorded = Locked<AudioRecordingSummary?>(nil)
        try server.startRecording(room: "town", to: path) { summary in recorded.withLock { $0 = summary } }
        // The legs' first RTCP reports (by 2.5 s) turn their FEC off: their encoding changes.
        PollingWait.sleep(3)
        let before = server.encodingFigures
        PollingWait.sleep(1)
        let after = server.encodingFigures
        let shared = after.shared - before.shared
        let encodes = after.groupEncodes - before.groupEncodes
        // Four listeners for a second: 200 frames, all shared; two frame phases: ≤ 100 encodes.
        XCTAssertGreaterThanOrEqual(shared, 190, "listeners' frames on the shared encode")
        XCTAssertLessThanOrEqual(encodes, 102, "one encode per 20 ms per frame phase")
        XCTAssertGreaterThanOrEqual(after.private - before.private, 145, "the talkers' own frames")
        checkEachHearsTheOthers(talkers)
        server.stopRecording(room: "town")
        XCTAssertTrue(PollingWait.until(timeout: 5) { recorded.withLock { $0 } != nil })
        let summary = try XCTUnwrap(recorded.withLock { $0 })
        XCTAssertNil(summary.error)
        XCTAssertEqual(summary.droppedSamples, 0)
        XCTAssertGreaterThan(summary.seconds, 3.5)
        let mix = try WAVFile(contentsOfFile: path).samples.suffix(48_000)
        for (name, tone) in tones { XCTAssertGreaterThan(ToneAmplitude.of(tone, in: mix), 4_000, "the recording holds \(name)") }
        for listener in listeners {
            let amplitudes = heard(listener, tones.map(\.1))
            for (tone, amplitude) in zip(tones, amplitudes) {
                XCTAssertGreaterThan(amplitude, 1_000, "a listener misses \(tone.0): \(amplitudes)")
            }
        }
        // Every listener's packets are its own: its SRTP, sequence and timestamps, and the far
        // end's jitter buffer plays them without loss.
        for listener in listeners {
            let stats = try XCTUnwrap(try onCallLoop(listener.call) { $0.media?.stream?.stats })
            XCTAssertEqual(stats.srtpAuthFailures, 0)
            XCTAssertEqual(stats.packetsLost, 0)
            XCTAssertGreaterThan(stats.packetsReceived, 100)
        }
        // The room leaves what the silent listeners announce as silence (RFC 6464) undecoded,
        // and decodes every frame of the talkers.
        let roomLegs = try server.participants(in: "town").compactMap { server.call(of: $0) }.map { call in
            try XCTUnwrap(try onCallLoop(call) { $0.media?.stream?.stats })
        }
        let skipping = roomLegs.filter { $0.framesNotDecoded > 100 }
        XCTAssertEqual(skipping.count, 4, "\(roomLegs.map(\.framesNotDecoded))")
        XCTAssertEqual(roomLegs.filter { $0.framesNotDecoded == 0 }.count, 3, "\(roomLegs.map(\.framesNotDecoded))")
        XCTAssertFalse(roomLegs.contains { $0.announcedLevelsDistrusted })
    }

    func testRoomsRefuseLongIdsUnknownRoomsAndCallersOverTheLimit() throws {
        let (server, _, host) = try startServer(ConferenceServerOptions(maximumParticipants: 2, knownRooms: ["board"], knownRoomsOnly: true))
        XCTAssertEqual(server.rooms, ["board"])
        let client = try caller("alice", frequency: 500)
        // Sinch's limit: 64 characters. The client refuses a longer `conference:` id itself…
        let local = RecordingCallDelegate()
        _ = client.connect(to: "conference:" + String(repeating: "a", count: 65), delegate: local)
        XCTAssertEqual(local.waitForEnd(), [.failed(.malformedRequest)])
        // …and the server answers a SIP URI naming one with 414 Request-URI Too Long.
        let long = join(client, frequency: 500, room: String(repeating: "a", count: 65), host: host)
        XCTAssertEqual(long.delegate.waitForEnd(), [.failed(.badRequest)])
        XCTAssertEqual(long.delegate.endError.withLock { $0 }?.sipStatus, 414)
        // An unknown room on a known-rooms-only server: 404.
        let unknown = join(client, frequency: 500, room: "lobby", host: host)
        XCTAssertEqual(unknown.delegate.waitForEnd(), [.failed(.notFound)])
        // A call that names no room: 404.
        let plain = RecordingCallDelegate()
        world.watch(plain.queue)
        _ = client.connect(to: "sip:rooms@\(host):5060", delegate: plain)
        XCTAssertEqual(plain.waitForEnd(), [.failed(.notFound)])
        // Two fit in "board"; the third is busy (486).
        let first = join(client, frequency: 500, room: "board", host: host)
        let second = join(try caller("bob", frequency: 700), frequency: 700, room: "board", host: host)
        XCTAssertEqual(first.delegate.wait(for: 2), [.ringing, .connected])
        XCTAssertEqual(second.delegate.wait(for: 2), [.ringing, .connected])
        let third = join(try caller("carol", frequency: 1_100), frequency: 1_100, room: "board", host: host)
        XCTAssertEqual(third.delegate.waitForEnd(), [.failed(.busyHere)])
        XCTAssertEqual(server.participants(in: "board").count, 2)
        // A known room stays open when everybody has left.
        first.call.disconnect()
        second.call.disconnect()
        _ = first.delegate.waitForEnd()
        _ = second.delegate.waitForEnd()
        XCTAssertTrue(PollingWait.until(timeout: 1) { server.participants(in: "board").isEmpty })
        XCTAssertEqual(server.rooms, ["board"])
    }
}
