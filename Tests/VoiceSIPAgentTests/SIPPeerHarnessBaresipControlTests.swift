#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import VoiceTestKit
import XCTest
import VoiceTestAudio

/// The `ctrl_tcp` client's pieces without baresip: netstring framing, message decoding,
/// `listcalls` lines, WAV files, and a scripted fake server.
final class SIPPeerHarnessBaresipControlTests: XCTestCase {
    private func frames(_ text: String, split: Int? = nil) throws -> [String] {
        var decoder = BaresipControlNetstring.Decoder()
        var out: [String] = []
        let bytes = Array(text.utf8)
        let cut = split ?? bytes.count
        for part in [bytes[..<cut], bytes[cut...]] {
            decoder.append(part)
            while let payload = try decoder.next() { out.append(String(decoding: payload, as: UTF8.self)) }
        }
        return out
    }

    func testNetstringEncodesTheSpecExamples() throws {
        XCTAssertEqual(String(decoding: try BaresipControlNetstring.encode(Array("hello world!".utf8)), as: UTF8.self), "12:hello world!,")
        XCTAssertEqual(String(decoding: try BaresipControlNetstring.encode([]), as: UTF8.self), "0:,")
        XCTAssertThrowsError(try BaresipControlNetstring.encode([UInt8](repeating: 0, count: BaresipControlNetstring.maximumPayloadSize + 1)))
    }

    func testNetstringDecodesFramesHoweverTheStreamIsCut() throws {
        let stream = "12:hello world!,0:,3:abc,"
        for split in 0...stream.utf8.count {
            XCTAssertEqual(try frames(stream, split: split), ["hello world!", "", "abc"], "split at \(split)")
        }
        var decoder = BaresipControlNetstring.Decoder()
        decoder.append(Array("5:ab".utf8))
        XCTAssertNil(try decoder.next())
        XCTAssertEqual(decoder.bufferedByteCount, 4)
    }

    func testNetstringRejectsMalformedFramesWithTypedErrors() {
        for bad in ["05:hello,", "x:,", ":abc,", "3:abcX", "3a:abc,", "9999999:", "-1:,"] {
            XCTAssertThrowsError(try frames(bad), bad) { error in
                XCTAssertEqual((error as? BaresipControlError)?.kind, .framing, "\(bad): \(error)")
            }
        }
        // After an error the decoder stays failed instead of resynchronising on garbage.
        var decoder = BaresipControlNetstring.Decoder()
        decoder.append(Array("3:abcX".utf8))
        XCTAssertThrowsError(try decoder.next())
        decoder.append(Array("1:a,".utf8))
        XCTAssertThrowsError(try decoder.next())
    }

    func testNetstringSurvivesRandomBytesWithoutCrashing() {
        var generator = SplitMix64(seed: 55)  // seeded: a failure replays
        for _ in 0..<500 {
            var decoder = BaresipControlNetstring.Decoder()
            decoder.append((0..<Int.random(in: 0...64, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            })
            for _ in 0..<70 { guard (try? decoder.next()) != nil else { break } }
        }
    }

    func testDecodesResponsesAndEventsAsBaresipSendsThem() throws {
        let response = #"{"response":true,"ok":false,"data":"command not found (hold)\n","token":"t3"}"#
        XCTAssertEqual(
            try BaresipControlMessage.decode(Array(response.utf8)),
            .response(BaresipControlResponse(ok: false, data: "command not found (hold)\n", token: "t3")))
        let event = #"{"event":true,"type":"CALL_DTMF_START","class":"call","accountaor":"sip:bob@127.0.0.1:35062","direction":"incoming","peeruri":"sip:alice@127.0.0.1:35060","id":"0ef8bb25fc7619d0","param":"1"}"#
        guard case .event(let decoded) = try BaresipControlMessage.decode(Array(event.utf8)) else {
            return XCTFail("not an event")
        }
        XCTAssertEqual(decoded.type, .callDTMFStart)
        XCTAssertEqual(decoded.param, "1")
        XCTAssertEqual(decoded.callID, "0ef8bb25fc7619d0")
        XCTAssertEqual(decoded.direction, "incoming")
        XCTAssertEqual(decoded.peerURI, "sip:alice@127.0.0.1:35060")
        XCTAssertEqual(decoded.accountAOR, "sip:bob@127.0.0.1:35062")
        let rtcp = #"{"event":"true","type":"CALL_RTCP","param":"audio","rtcp_stats":{"tx":{"sent":0}}}"#
        guard case .event(let report) = try BaresipControlMessage.decode(Array(rtcp.utf8)) else { return XCTFail("not an event") }
        XCTAssertEqual(report.type, .callRTCP)
        XCTAssertNil(report.fields["rtcp_stats"])
    }

    func testRejectsMessagesThatAreNeitherResponsesNorEvents() {
        for bad in ["", "not json", "[1,2]", #"{"event":true}"#, #"{"response":true}"#, #"{"hello":1}"#, #"{"event":false,"type":"X"}"#] {
            XCTAssertThrowsError(try BaresipControlMessage.decode(Array(bad.utf8)), bad) { error in
                XCTAssertEqual((error as? BaresipControlError)?.kind, .malformedMessage, "\(bad): \(error)")
            }
        }
    }

    func testParsesListcallsOutput() {
        let text = "\n--- Active calls (2) ---\n> [line 1]  0:00:03  ESTABLISHED             sip:bob@127.0.0.1:35062\n  [line 2]  0:00:00  INCOMING                sip:carol@127.0.0.1:5070\n\n"
        XCTAssertEqual(
            BaresipControlCall.parseList(text),
            [
                BaresipControlCall(isCurrent: true, line: 1, state: "ESTABLISHED", peerURI: "sip:bob@127.0.0.1:35062"),
                BaresipControlCall(isCurrent: false, line: 2, state: "INCOMING", peerURI: "sip:carol@127.0.0.1:5070"),
            ])
        XCTAssertEqual(BaresipControlCall.parseList("\n--- Active calls (0) ---\n(no active calls)\n"), [])
        XCTAssertEqual(BaresipControlCall.parseList("> [line x]  0:00:03  ESTABLISHED sip:a@b\n[line 1] 0:00 established sip:a@b"), [])
    }

    func testWAVFilesRoundTripAndRejectOtherFormats() throws {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-wav")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tone.wav"
        let mono: [Int16] = [0, 1000, -1000, Int16.max, Int16.min]
        try BaresipWAVFile.write(mono, to: path)
        let audio = try BaresipWAVFile.read(path)
        XCTAssertEqual(audio.sampleRate, 48_000)
        XCTAssertEqual(audio.channels, 2)
        XCTAssertEqual(audio.samples.count, 10)
        XCTAssertEqual(audio.channel(0), mono)
        let garbage = directory + "/garbage.wav"
        _ = FileManager.default.createFile(atPath: garbage, contents: Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8))
        XCTAssertThrowsError(try BaresipWAVFile.read(garbage)) { XCTAssertEqual(($0 as? SIPPeerError)?.kind, .invalidValue) }
        XCTAssertThrowsError(try BaresipWAVFile.read(directory + "/missing.wav")) {
            XCTAssertEqual(($0 as? SIPPeerError)?.kind, .fileSystem)
        }
    }

    func testConnectingToAClosedPortFailsInTime() throws {
        let port = try SIPPeerProcess.freePort()
        let start = ContinuousClock.now
        XCTAssertThrowsError(try BaresipControl(port: port, connectTimeout: .milliseconds(300))) { error in
            XCTAssertEqual((error as? BaresipControlError)?.kind, .connectFailed, "\(error)")
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
    }

    /// A fake `ctrl_tcp`: answers every command with an event and then a response, the order
    /// baresip uses for `dial`, and answers `bogus` with `ok: false`.
    func testCommandsGetTheirResponsesAndEventsAreCollected() throws {
        let server = try FakeControlServer()
        defer { server.stop() }
        let control = try BaresipControl(port: server.port, connectTimeout: .seconds(2))
        defer { control.close() }
        try control.dial("sip:bob@127.0.0.1:5062")
        XCTAssertEqual(server.commands.first, #"{"command":"dial","params":"sip:bob@127.0.0.1:5062","token":"t1"}"#)
        try control.sendDTMF("1")
        XCTAssertEqual(try control.waitForEvent(.callRinging, timeout: .seconds(2)).param, "dial sip:bob@127.0.0.1:5062")
        XCTAssertEqual(try control.waitForEvent(.callRinging, timeout: .seconds(2)).param, "sndcode 1")
        XCTAssertThrowsError(try control.waitForEvent(.callRinging, timeout: .milliseconds(100))) {
            XCTAssertEqual(($0 as? BaresipControlError)?.kind, .timeout)
        }
        XCTAssertEqual(control.events(ofType: .callRinging).count, 2)
        XCTAssertThrowsError(try control.command("bogus")) { error in
            XCTAssertEqual((error as? BaresipControlError)?.kind, .commandFailed)
            XCTAssertTrue("\(error)".contains("command not found"), "\(error)")
        }
        for bad in ["", "a b", "sip:\"x\"@h", "sip:x@h\r\nevil"] {
            XCTAssertThrowsError(try control.dial(bad), bad) { XCTAssertEqual(($0 as? BaresipControlError)?.kind, .invalidArgument) }
        }
        XCTAssertThrowsError(try control.sendDTMF("12x")) { XCTAssertEqual(($0 as? BaresipControlError)?.kind, .invalidArgument) }
        XCTAssertThrowsError(try control.command("dial", String(repeating: "a", count: 300))) {
            XCTAssertEqual(($0 as? BaresipControlError)?.kind, .invalidArgument)
        }
        server.stop()
        XCTAssertThrowsError(try control.waitForEvent(.callClosed, timeout: .seconds(2))) {
            XCTAssertEqual(($0 as? BaresipControlError)?.kind, .closed, "\($0)")
        }
        XCTAssertFalse(control.isConnected)
        XCTAssertThrowsError(try control.hangUp()) { XCTAssertEqual(($0 as? BaresipControlError)?.kind, .closed) }
    }
}

/// One-connection TCP server on 127.0.0.1 speaking the `ctrl_tcp` framing, for the client test.
private final class FakeControlServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var connection: Int32 = -1
    private var stopped = false

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 1) == 0 else {
            close(fd)
            throw SIPPeerError(.socket, "fake server bind/listen")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    var commands: [String] { lock.withLock { received } }

    func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            if connection >= 0 { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func serve() {
        let client = accept(listener, nil, nil)
        lock.withLock { connection = client }
        defer { close(client); close(listener) }
        guard client >= 0 else { return }
        var decoder = BaresipControlNetstring.Decoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            decoder.append(buffer[0..<count])
            while let payload = try? decoder.next() {
                let text = String(decoding: payload, as: UTF8.self)
                lock.withLock { received.append(text) }
                guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: String],
                    let command = object["command"], let token = object["token"]
                else { return }
                let line = command + (object["params"].map { " " + $0 } ?? "")
                let event = #"{"event":true,"type":"CALL_RINGING","class":"call","param":"\#(line)"}"#
                let ok = command != "bogus"
                let response = #"{"response":true,"ok":\#(ok),"data":"\#(ok ? "" : "command not found (\(command))\\n")","token":"\#(token)"}"#
                for message in [event, response] {
                    guard let frame = try? BaresipControlNetstring.encode(Array(message.utf8)) else { return }
                    _ = frame.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
            }
        }
    }
}
