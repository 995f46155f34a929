import Dispatch
import Foundation
import Logging
import VoiceConference
import VoiceEmbedded
import VoiceCore
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

/// The README's examples and the articles' code are compiled (they are the files of
/// `Examples/`, checked here to be the printed text) and run: a softphone calls another, a bot
/// greets a caller, two callers meet in a room, and every article's snippets run against a
/// client and a live call on loopback.
final class DocumentationExamplesTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A block's or a file's lines, trimmed, without blank ones.
    private static func lines(_ text: Substring) -> [Substring] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces)[...] }.filter { !$0.isEmpty }
    }

    /// The ```swift blocks of a Markdown file.
    private static func swiftBlocks(of path: URL) throws -> [Substring] {
        let text = try String(contentsOf: path, encoding: .utf8)
        return text.components(separatedBy: "```swift\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first.map { Substring($0) }
        }
    }

    func testEverySwiftBlockOfTheREADMEAndTheArticlesIsTheTextOfAnExample() throws {
        let examples = Self.root.appendingPathComponent("Tests/VoiceCoreTests/Examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".swift") }
        let sources = try files.map { Self.lines(try String(contentsOf: examples.appendingPathComponent($0), encoding: .utf8)[...]) }
        let catalog = Self.root.appendingPathComponent("Sources/VoiceCore/VoiceCore.docc")
        let documents = [Self.root.appendingPathComponent("README.md")]
            + (try FileManager.default.contentsOfDirectory(atPath: catalog.path)).sorted().filter { $0.hasSuffix(".md") }
            .map { catalog.appendingPathComponent($0) }
        var checked = 0
        for document in documents {
            for block in try Self.swiftBlocks(of: document) {
                let wanted = Self.lines(block)
                let found = sources.contains { source in
                    source.count >= wanted.count
                        && (0...(source.count - wanted.count)).contains { Array(source[$0..<($0 + wanted.count)]) == wanted }
                }
                XCTAssertTrue(found, "\(document.lastPathComponent): this block is not the text of a file in Tests/VoiceCoreTests/Examples:\n\(block)")
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 25, "the README's three examples and the articles' snippets")
    }

    /// What a PCM device handed on, behind a lock.
    private final class Heard: Sendable {
        let samples = Locked<[Int16]>([])
        @Sendable func append(_ buffer: UnsafeBufferPointer<Int16>) { samples.withLock { $0.append(contentsOf: buffer) } }
    }

    /// Two softphones of the README on loopback (nobody answers their REGISTER there: each
    /// prints why), alice's playing speech into bob's.
    private func softphones() throws -> (alice: Softphone, bob: Softphone, speech: [Int16], heardByBob: Heard) {
        let speech = TestSignals.speechLike(seconds: 3, seed: 5)
        let aliceDevice = PCMAudioDevice()
        aliceDevice.play(speech)
        let heardByBob = Heard()
        let alice = try Softphone(server: "127.0.0.1", user: "alice", password: "secret", audioDevice: aliceDevice)
        let bob = try Softphone(server: "127.0.0.1", user: "bob", password: "secret", audioDevice: PCMAudioDevice(onAudio: heardByBob.append))
        return (alice, bob, speech, heardByBob)
    }

    private func calls(of phone: Softphone) -> [Call] { phone.queue.sync { phone.calls } }

    /// Alice dials Bob and the call connects at both ends (the caller shuts both down after).
    private func dialed(_ alice: Softphone, _ bob: Softphone) {
        alice.dial("sip:bob@127.0.0.1:\(bob.client.localEndpoint.port)")
        XCTAssertTrue(PollingWait.until(timeout: 10) { self.calls(of: alice).first?.state == .connected })
        XCTAssertTrue(PollingWait.until(timeout: 5) { self.calls(of: bob).first?.state == .connected })
    }

    func testTheSoftphoneExamplePlacesAndAnswersACallThatCarriesSpeech() throws {
        let (alice, bob, speech, heardByBob) = try softphones()
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        dialed(alice, bob)
        Thread.sleep(forTimeInterval: 2.5)
        let call = try XCTUnwrap(calls(of: alice).first)
        call.disconnect()
        XCTAssertTrue(PollingWait.until(timeout: 5) { self.calls(of: alice).isEmpty && self.calls(of: bob).isEmpty }, "both ends let the call go")
        let match = SpectralSimilarity(played: speech, in: heardByBob.samples.withLock { $0 })
        XCTAssertGreaterThan(match.score, 0.8, "bob heard alice's speech: \(match)")
    }

    func testTheBotExampleGreetsTheCallerAndStopsWithItsTask() async throws {
        var configuration = VoiceClientConfiguration(identity: "bot", domain: "127.0.0.1", registers: false)
        configuration.listenPort = try SIPPeerProcess.freePort()
        let greeting = TestSignals.speechLike(seconds: 2, seed: 9)
        let running = Task { [configuration] in try await runBot(configuration: configuration, greeting: greeting, logger: Logger(label: "bot")) }
        // Dialled before the bot listens, the INVITE meets an ICMP port unreachable and fails at once (31009).
        XCTAssertTrue(PollingWait.until(timeout: 10) { SIPPeerProcess.isUDPPortTaken(configuration.listenPort) }, "the bot listens")
        let heard = Heard()
        let caller = try VoiceClient(
            configuration: VoiceClientConfiguration(identity: "caller", domain: "127.0.0.1", registers: false),
            audioDevice: PCMAudioDevice(onAudio: heard.append))
        defer { caller.shutdown() }
        let call = caller.connect(
            options: ConnectOptions { builder in
                builder.params = ["To": "sip:bot@127.0.0.1:\(configuration.listenPort)"]
                builder.delegateQueue = DispatchQueue(label: "caller")
            },
            delegate: EchoBot(greeting: []))
        XCTAssertTrue(PollingWait.until(timeout: 10) { call.state == .connected })
        try await Task.sleep(for: .seconds(2.5))
        let match = SpectralSimilarity(played: greeting, in: heard.samples.withLock { $0 })
        XCTAssertGreaterThan(match.score, 0.8, "the caller heard the greeting: \(match)")
        running.cancel()
        _ = await running.result
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.state == .disconnected }, "the service hung up as it stopped")
    }

    func testTheRoomsExampleLetsTwoCallersHearEachOther() async throws {
        var configuration = VoiceClientConfiguration(identity: "rooms", domain: "127.0.0.1", registers: false)
        configuration.listenPort = try SIPPeerProcess.freePort()
        let hosting = Task { [configuration] in try await hostRooms(configuration: configuration, logger: Logger(label: "rooms")) }
        XCTAssertTrue(PollingWait.until(timeout: 10) { SIPPeerProcess.isUDPPortTaken(configuration.listenPort) }, "the rooms listen")
        let tones = [TestSignals.speechLike(seconds: 3, seed: 21), TestSignals.speechLike(seconds: 3, seed: 22)]
        let heard = [Heard(), Heard()]
        var callers: [VoiceClient] = []
        defer { callers.forEach { $0.shutdown() } }
        var calls: [Call] = []
        for index in 0..<2 {
            let device = PCMAudioDevice(onAudio: heard[index].append)
            device.play(tones[index])
            let caller = try VoiceClient(
                configuration: VoiceClientConfiguration(identity: "caller\(index)", domain: "127.0.0.1", registers: false), audioDevice: device)
            callers.append(caller)
            calls.append(caller.connect(
                options: ConnectOptions { builder in
                    builder.params = ["To": "sip:standup@127.0.0.1:\(configuration.listenPort);conference"]
                    builder.delegateQueue = DispatchQueue(label: "caller\(index)")
                },
                delegate: EchoBot(greeting: [])))
        }
        XCTAssertTrue(PollingWait.until(timeout: 10) { calls.allSatisfy { $0.state == .connected } })
        try await Task.sleep(for: .seconds(3))
        let firstHearsSecond = SpectralSimilarity(played: tones[1], in: heard[0].samples.withLock { $0 })
        let secondHearsFirst = SpectralSimilarity(played: tones[0], in: heard[1].samples.withLock { $0 })
        XCTAssertGreaterThan(firstHearsSecond.score, 0.7, "\(firstHearsSecond)")
        XCTAssertGreaterThan(secondHearsFirst.score, 0.7, "\(secondHearsFirst)")
        hosting.cancel()
        _ = await hosting.result
        XCTAssertTrue(PollingWait.until(timeout: 5) { calls.allSatisfy { $0.state == .disconnected } }, "the rooms' client shut down")
    }

    /// Each article's snippets, with a fresh configuration, a client and a live call.
    func testEveryArticlesSnippetsRun() throws {
        let (alice, bob, _, _) = try softphones()
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        dialed(alice, bob)
        let call = try XCTUnwrap(calls(of: alice).first)
        let client = try VoiceClient(configuration: VoiceClientConfiguration(identity: "docs", domain: "127.0.0.1", registers: false))
        defer { client.shutdown() }
        let logger = Logger(label: "docs")
        let articles: [(String, (inout VoiceClientConfiguration, VoiceClient, Call, Logger) throws -> Void)] = [
            ("GettingStarted", ArticleSnippets.gettingStarted), ("ServersAndProxies", ArticleSnippets.serversAndProxies),
            ("WebRTCBrowsersAndGateways", ArticleSnippets.webRTCBrowsersAndGateways), ("NATAndTURN", ArticleSnippets.nATAndTURN),
            ("EncryptingMedia", ArticleSnippets.encryptingMedia), ("OnTheOpenInternet", ArticleSnippets.onTheOpenInternet),
            ("VoiceQualityAndProcessing", ArticleSnippets.voiceQualityAndProcessing), ("ConferenceRooms", ArticleSnippets.conferenceRooms),
            ("Threading", ArticleSnippets.threading), ("Migration", ArticleSnippets.migration),
        ]
        for (article, run) in articles {
            var configuration = VoiceClientConfiguration(identity: "docs", domain: "127.0.0.1", registers: false)
            XCTAssertNoThrow(try run(&configuration, client, call, logger), article)
        }
        XCTAssertTrue(call.isMuted, "GettingStarted muted the call")
        XCTAssertEqual(call.audioProcessing, AudioProcessingOptions(echoCancellation: true, noiseSuppression: false), "VoiceQualityAndProcessing set it")
    }
}
