import Foundation
import VoiceEmbedded
import VoiceMedia
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

/// Rooms spread over two room servers behind Kamailio's dispatcher (the test kit's
/// `conference-dispatcher.cfg`), each server in a network namespace of its own: a room lives on
/// the server a hash of its id picks, so everybody who calls it meets there; rooms spread over
/// both; when a server dies, the health checks take it out and new joins go to the other.
final class ConferenceScaleOutTests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    func testRoomsArePinnedByTheirIdSpreadOverServersAndMoveWhenOneDies() throws {
        let binary = try namespaceScenarioVoicecall(needing: ["kamailio"])
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "scale-out")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        // The hub holds the proxy (10.9.0.1) and the callers; each server hangs off it on a link of its own.
        let hub = try NetworkNamespace(prefix: "sh")
        let servers = try [NetworkNamespace(prefix: "s1"), NetworkNamespace(prefix: "s2")]
        cleanup.append { for namespace in [hub] + servers { namespace.delete() } }
        try hub.batch("addr add 10.9.0.1/32 dev lo")
        for (index, server) in servers.enumerated() {
            let subnet = "10.7.\(index + 1)"
            try NetworkNamespace.run(["link", "add", "h\(index)", "netns", hub.name, "type", "veth", "peer", "name", "s\(index)", "netns", server.name])
            try hub.batch("link set h\(index) up", "addr add \(subnet).1/24 dev h\(index)")
            try server.batch("link set s\(index) up", "addr add \(subnet).2/24 dev s\(index)", "route add default via \(subnet).1")
        }
        let roomServers = try servers.enumerated().map { index, server in
            let process = try SIPPeerProcess(
                name: "room server \(index + 1)", executable: NetworkNamespace.ipPath,
                arguments: [
                    "netns", "exec", server.name, binary, "conference", "--identity", "rooms", "--listen", "10.7.\(index + 1).2",
                    "--port", "5060", "--no-register", "--duration", "300",
                ],
                workingDirectory: directory, logPath: directory + "/rooms\(index + 1).log")
            cleanup.append { process.stop() }
            return process
        }
        for server in roomServers {
            XCTAssertTrue(PollingWait.until(timeout: 20) { server.log.contains("conference rooms on") }, server.logTail())
        }
        var configuration = KamailioConfiguration()
        configuration.listenHost = "10.9.0.1"
        configuration.udpPort = 5060
        configuration.tcpPort = 5060
        configuration.dispatcherDestinations = ["sip:10.7.1.2:5060", "sip:10.7.2.2:5060"]
        configuration.dispatcherPingInterval = 1
        let kamailio = try KamailioPeer(
            templatePath: PeerTemplates.kamailioConferenceDispatcher, configuration: configuration, namespace: hub)
        cleanup.append { kamailio.stop() }

        let tones = [(name: "ann", frequency: 500.0), (name: "ben", frequency: 700.0)]
        for tone in tones {
            try WAVFile(sampleRate: 48_000, channels: 1, samples: TestSignals.multiTone([(tone.frequency, 6_000)], seconds: 4))
                .write(toFile: directory + "/\(tone.name).wav")
        }
        /// Two callers join `room` at once through the proxy; returns their processes once they ended.
        func join(_ room: String, suffix: String) throws -> [SIPPeerProcess] {
            let calls = try tones.map { tone in
                let name = "\(tone.name)\(suffix)"
                let call = try SIPPeerProcess(
                    name: "\(name) in \(room)", executable: NetworkNamespace.ipPath,
                    arguments: [
                        "netns", "exec", hub.name, binary, "call", "conference:\(room)", "--identity", name, "--domain",
                        configuration.realm, "--proxy", "sip:10.9.0.1:5060", "--listen", "10.9.0.1", "--play",
                        directory + "/\(tone.name).wav", "--record", directory + "/\(name)-\(room)-heard.wav", "--duration", "3",
                    ],
                    workingDirectory: directory, logPath: directory + "/\(name)-\(room).log")
                cleanup.append { call.stop() }
                return call
            }
            for call in calls { XCTAssertTrue(PollingWait.until(timeout: 30) { !call.isRunning }, call.logTail()) }
            return calls
        }
        /// The server (0 or 1) whose log has `name` joining `room`, if exactly one has.
        func server(of name: String, in room: String) -> Int? {
            let holders = roomServers.indices.filter { roomServers[$0].log.contains("\(name)@\(room) joined") }
            return holders.count == 1 ? holders[0] : nil
        }

        let rooms = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
        var placement: [String: Int] = [:]
        for room in rooms {
            let calls = try join(room, suffix: "")
            for call in calls { XCTAssertEqual(call.exitStatus, 0, call.logTail()) }
            let ann = server(of: "ann", in: room), ben = server(of: "ben", in: room)
            XCTAssertNotNil(ann, "ann joined \(room) on exactly one server:\n\(kamailio.process.logTail())")
            XCTAssertEqual(ann, ben, "\(room): both callers meet on one server")
            placement[room] = ann
        }
        print("conference scale-out: rooms per server \(placement.sorted { $0.key < $1.key })")
        XCTAssertEqual(Set(placement.values), [0, 1], "rooms spread over both servers: \(placement)")

        // The first server dies: the next health check takes it out; its rooms' next callers
        // meet on the second one, and hear each other there.
        kill(roomServers[0].pid, SIGKILL)
        XCTAssertTrue(
            PollingWait.until(timeout: 10) { kamailio.log.contains("destination down sip:10.7.1.2:5060") }, kamailio.process.logTail())
        let moved = try XCTUnwrap(placement.first { $0.value == 0 }?.key)
        let calls = try join(moved, suffix: "2")
        for call in calls { XCTAssertEqual(call.exitStatus, 0, call.logTail()) }
        XCTAssertEqual(server(of: "ann2", in: moved), 1, "\(moved) opened again on the live server")
        XCTAssertEqual(server(of: "ben2", in: moved), 1)
        let annHeard = try WAVFile(contentsOfFile: directory + "/ann2-\(moved)-heard.wav").channel(0).suffix(48_000)
        XCTAssertGreaterThan(ToneAmplitude.of(700, in: annHeard), 3_000, "ann hears ben in the moved room")
        XCTAssertLessThan(ToneAmplitude.of(500, in: annHeard), 150, "and not herself")
    }
}
