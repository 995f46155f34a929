import Foundation
import VoiceEmbedded
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Call transfer with pjsip (pjsua2) in each role: as the transferor (`Call.xfer`), as the
/// transferee of our blind and attended transfers, and as the target of an attended one (an
/// INVITE with Replaces). Each proves the audio path of the new call with tones: pjsua2 plays
/// 800 Hz, our clients each their own.
final class CallTransferInteropTests: XCTestCase {
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
    }

    private func client(_ name: String, tone: Double) throws -> TestVoiceClient {
        let client = try TestVoiceClient(name, signal: ConnectedCallPair.tone(tone)) { configuration in
            configuration.mediaSecurity = .sdes  // pjsua2 as installed keys with SDES
        }
        clients.append(client)
        return client
    }

    /// `client` answers every call with a delegate it returns. With `acceptingTransfers`, that
    /// delegate accepts transfer requests, and the calls they place report to `placed`.
    private func answering(_ client: TestVoiceClient, acceptingTransfers: Bool = false) -> (calls: TransferRecordingDelegate, placed: TransferRecordingDelegate) {
        let placed = TransferRecordingDelegate()
        let calls = TransferRecordingDelegate(acceptingWith: acceptingTransfers ? placed : nil)
        _ = client.listen().acceptEach(withTransferDelegate: calls)
        return (calls, placed)
    }

    private func pjsua(call: String? = nil, script: [PJSUAPeer.Step] = []) throws -> PJSUAPeer {
        let port = try SIPPeerProcess.freePort()
        return try PJSUAPeer(PJSUAPeer.Options(port: port, call: call, script: script, exitAfter: 30, tone: 800))
    }

    /// pjsua2 calls bob and transfers him to carol (blind): bob is asked, accepts, calls carol
    /// with Referred-By; pjsua2 hears 180 and 200 in NOTIFYs; bob and carol hear each other.
    func testAPJSUATransfersUsToAnotherClient() throws {
        try TestPrerequisites.pjsua2()
        let bob = try client("bob", tone: 660)
        let carol = try client("carol", tone: 440)
        let carolDelegate = answering(carol).calls
        let (bobDelegate, newCall) = answering(bob, acceptingTransfers: true)
        let peer = try pjsua(call: bob.address, script: [.sleep(1), .transfer(carol.address)])
        defer { peer.stop() }

        XCTAssertTrue(newCall.wait { $0.contains("connected") }, "\(newCall.callbacks); pjsua2:\n\(peer.logTail)")
        let request = try XCTUnwrap(bobDelegate.requests.withLock { $0.first })
        XCTAssertEqual(request.target, carol.address)
        XCTAssertFalse(request.isAttended)
        XCTAssertNotNil(request.referredBy, "pjsua2 names itself in Referred-By")
        XCTAssertTrue(carolDelegate.wait { $0.contains("connected") })
        XCTAssertTrue(peer.waitForLine("XFER STATUS 200 1", timeout: 10), "pjsua2 heard the transfer succeed:\n\(peer.logTail)")
        XCTAssertGreaterThan(carol.hears(660), 2_000, "carol hears bob")
        XCTAssertGreaterThan(bob.hears(440), 2_000, "bob hears carol")
    }

    /// pjsua2 talks to bob and to carol, and joins them (attended, `xferReplaces`): bob calls
    /// carol with Replaces, carol's call with pjsua2 is replaced by bob's, and they hear each other.
    func testAPJSUAJoinsTwoOfOurClientsWithAnAttendedTransfer() throws {
        try TestPrerequisites.pjsua2()
        let bob = try client("bob", tone: 660)
        let carol = try client("carol", tone: 440)
        let carolDelegate = answering(carol).calls
        let (bobDelegate, newCall) = answering(bob, acceptingTransfers: true)
        let peer = try pjsua(call: bob.address, script: [.sleep(0.5), .consult(carol.address), .transferReplacing])
        defer { peer.stop() }

        XCTAssertTrue(newCall.wait { $0.contains("connected") }, "\(newCall.callbacks); pjsua2:\n\(peer.logTail)")
        XCTAssertEqual(bobDelegate.requests.withLock { $0.first?.isAttended }, true)
        XCTAssertTrue(carolDelegate.wait { $0.contains("replaced") }, "\(carolDelegate.callbacks)")
        XCTAssertTrue(peer.waitForLine("XFER STATUS 200 1", timeout: 10), peer.logTail)
        XCTAssertGreaterThan(carol.hears(660), 2_000, "carol hears bob")
        XCTAssertGreaterThan(bob.hears(440), 2_000, "bob hears carol")
    }

    /// alice transfers pjsua2 to carol (blind): pjsua2 calls carol, alice hears the transfer
    /// succeed and her call ends as transferred; carol hears pjsua2's tone.
    func testWeTransferAPJSUAToAnotherClient() throws {
        try TestPrerequisites.pjsua2()
        let alice = try client("alice", tone: 1_000)
        let carol = try client("carol", tone: 440)
        let carolDelegate = answering(carol).calls
        let peer = try pjsua()
        defer { peer.stop() }
        let aliceDelegate = TransferRecordingDelegate()
        let call = alice.connect(to: "sip:pj@127.0.0.1:\(peer.options.port)", transferDelegate: aliceDelegate)
        XCTAssertTrue(aliceDelegate.wait { $0.contains("connected") }, "\(aliceDelegate.callbacks); pjsua2:\n\(peer.logTail)")

        call.transfer(to: carol.address)
        XCTAssertTrue(aliceDelegate.waitForProgress(.succeeded), "\(aliceDelegate.progress); pjsua2:\n\(peer.logTail)")
        XCTAssertEqual(aliceDelegate.progress.first, .trying)
        XCTAssertTrue(aliceDelegate.wait { $0.contains("disconnected(nil)") }, "\(aliceDelegate.callbacks)")
        XCTAssertEqual(call.details.endCause, .transferred)
        XCTAssertTrue(peer.lines.contains { $0.hasPrefix("XFER REQUEST") }, peer.logTail)
        XCTAssertTrue(carolDelegate.wait { $0.contains("connected") })
        XCTAssertGreaterThan(carol.hears(800), 2_000, "carol hears pjsua2")
    }

    /// alice talks to pjsua2 and to carol, and joins them (attended): pjsua2 calls carol with
    /// Replaces, carol's call with alice is replaced by it, and carol hears pjsua2.
    func testWeJoinAPJSUAToAClientWithAnAttendedTransfer() throws {
        try TestPrerequisites.pjsua2()
        let alice = try client("alice", tone: 1_000)
        let carol = try client("carol", tone: 440)
        let carolDelegate = answering(carol).calls
        let peer = try pjsua()
        defer { peer.stop() }
        let toPeer = TransferRecordingDelegate(), toCarol = TransferRecordingDelegate()
        let first = alice.connect(to: "sip:pj@127.0.0.1:\(peer.options.port)", transferDelegate: toPeer)
        let second = alice.connect(to: carol.address, transferDelegate: toCarol)
        XCTAssertTrue(toPeer.wait { $0.contains("connected") } && toCarol.wait { $0.contains("connected") })

        first.transfer(replacing: second)
        XCTAssertTrue(toPeer.waitForProgress(.succeeded), "\(toPeer.progress); pjsua2:\n\(peer.logTail)")
        XCTAssertTrue(carolDelegate.wait { $0.contains("replaced") }, "\(carolDelegate.callbacks)")
        XCTAssertTrue(toPeer.wait { $0.contains("disconnected(nil)") })
        XCTAssertTrue(toCarol.wait { $0.contains("disconnected(nil)") }, "carol ended the replaced call")
        XCTAssertEqual(first.details.endCause, .transferred)
        let replacement = try XCTUnwrap(carolDelegate.replacement.withLock { $0 })
        XCTAssertTrue(PollingWait.until(timeout: 5) { replacement.state == .connected })
        XCTAssertGreaterThan(carol.hears(800), 2_000, "carol hears pjsua2 on the call that replaced alice's")
    }

    /// alice talks to bob and to pjsua2, and joins them: bob calls pjsua2 with Replaces, and
    /// pjsua2 swaps alice's call for bob's.
    func testAnAttendedTransferReplacesACallAtAPJSUATarget() throws {
        try TestPrerequisites.pjsua2()
        let alice = try client("alice", tone: 1_000)
        let bob = try client("bob", tone: 660)
        let (bobDelegate, newCall) = answering(bob, acceptingTransfers: true)
        let peer = try pjsua()
        defer { peer.stop() }
        let toBob = TransferRecordingDelegate(), toPeer = TransferRecordingDelegate()
        let first = alice.connect(to: bob.address, transferDelegate: toBob)
        let second = alice.connect(to: "sip:pj@127.0.0.1:\(peer.options.port)", transferDelegate: toPeer)
        XCTAssertTrue(toBob.wait { $0.contains("connected") } && toPeer.wait { $0.contains("connected") })

        first.transfer(replacing: second)
        XCTAssertTrue(newCall.wait { $0.contains("connected") }, "\(newCall.callbacks); pjsua2:\n\(peer.logTail)")
        XCTAssertEqual(bobDelegate.requests.withLock { $0.first?.isAttended }, true)
        XCTAssertTrue(toBob.waitForProgress(.succeeded), "\(toBob.progress)")
        XCTAssertTrue(toPeer.wait { $0.contains("disconnected(nil)") }, "pjsua2 ended the replaced call: \(toPeer.callbacks)")
        XCTAssertGreaterThan(bob.hears(800), 2_000, "bob hears pjsua2")
    }

    /// We call baresip, which transfers us to carol (its `transfer` command: a blind REFER):
    /// alice accepts, calls carol with Referred-By, and alice and carol hear each other.
    func testBaresipTransfersUsToAnotherClient() throws {
        try TestPrerequisites.installed("baresip")
        var configuration = BaresipConfiguration()
        configuration.mediaEncryption = "srtp-mand"
        configuration.sipPort = try SIPPeerProcess.freePort()
        let phone = try BaresipPeer(configuration: configuration)
        defer { phone.stop() }
        let alice = try client("alice", tone: 1_000)
        let carol = try client("carol", tone: 440)
        let carolDelegate = answering(carol).calls
        let newCall = TransferRecordingDelegate()
        let aliceDelegate = TransferRecordingDelegate(acceptingWith: newCall)
        _ = alice.connect(to: "sip:bob@127.0.0.1:\(configuration.sipPort)", transferDelegate: aliceDelegate)
        XCTAssertTrue(aliceDelegate.wait { $0.contains("connected") }, "\(aliceDelegate.callbacks); baresip:\n\(phone.process.logTail())")
        try phone.control.waitForEvent(.callEstablished)

        _ = try phone.control.command("transfer", carol.address)
        XCTAssertTrue(newCall.wait { $0.contains("connected") }, "\(newCall.callbacks); baresip:\n\(phone.process.logTail())")
        XCTAssertEqual(aliceDelegate.requests.withLock { $0.first?.target }, carol.address)
        XCTAssertTrue(carolDelegate.wait { $0.contains("connected") })
        XCTAssertGreaterThan(carol.hears(1_000), 2_000, "carol hears alice")
        XCTAssertGreaterThan(alice.hears(440), 2_000, "alice hears carol")
    }

    // MARK: - linphone (linphonec: no sound card, so it sends no audio)

    /// A linphone call: linphone, alice (1 kHz) in a connected call with it, and carol (440 Hz)
    /// answering every call. With `placed`, alice accepts transfer requests and the calls they
    /// place report there.
    private struct LinphoneCall {
        var phone: LinphonePeer
        var alice: TestVoiceClient
        var carol: TestVoiceClient
        var carolCalls: TransferRecordingDelegate
        var aliceCalls: TransferRecordingDelegate
        var call: Call
    }

    private func aliceCallsLinphone(acceptingTransfersWith placed: TransferRecordingDelegate? = nil) throws -> LinphoneCall {
        try TestPrerequisites.linphone()
        let phone = try LinphonePeer()
        let alice = try client("alice", tone: 1_000)
        let carol = try client("carol", tone: 440)
        let carolCalls = answering(carol).calls
        let aliceCalls = TransferRecordingDelegate(acceptingWith: placed)
        let call = alice.connect(to: phone.uri, transferDelegate: aliceCalls)
        XCTAssertTrue(aliceCalls.wait { $0.contains("connected") }, "\(aliceCalls.callbacks); linphonec:\n\(phone.logTail)")
        XCTAssertTrue(phone.waitFor("connected."), phone.logTail)
        return LinphoneCall(phone: phone, alice: alice, carol: carol, carolCalls: carolCalls, aliceCalls: aliceCalls, call: call)
    }

    /// We call linphone, which transfers us to carol (linphonec's `transfer`: a blind REFER
    /// whose Refer-To has no angle brackets): alice accepts, calls carol, and alice and carol
    /// hear each other; linphone hears the 200 in a NOTIFY and hangs up its call with alice.
    func testLinphoneTransfersUsToAnotherClient() throws {
        let newCall = TransferRecordingDelegate()
        let setup = try aliceCallsLinphone(acceptingTransfersWith: newCall)
        let (phone, alice, carol) = (setup.phone, setup.alice, setup.carol)
        defer { phone.stop() }

        try phone.command("transfer \(carol.address)")
        XCTAssertTrue(newCall.wait { $0.contains("connected") }, "\(newCall.callbacks); linphonec:\n\(phone.logTail)")
        XCTAssertEqual(setup.aliceCalls.requests.withLock { $0.first?.target }, carol.address)
        XCTAssertTrue(setup.carolCalls.wait { $0.contains("connected") })
        XCTAssertTrue(phone.waitFor("has been transfered"), "linphone heard the transfer succeed:\n\(phone.logTail)")
        XCTAssertTrue(setup.aliceCalls.wait { $0.contains("disconnected(nil)") }, "linphone hung up: \(setup.aliceCalls.callbacks)")
        XCTAssertGreaterThan(carol.hears(1_000), 2_000, "carol hears alice")
        XCTAssertGreaterThan(alice.hears(440), 2_000, "alice hears carol")
    }

    /// alice transfers linphone to carol (blind): linphone accepts (202), holds alice, calls
    /// carol with Referred-By, and reports the steps in NOTIFYs. Its final NOTIFY carries
    /// `Subscription-State: terminated;reason=reason=noresource` (linphone 5.1's own mistake,
    /// which pjsip refuses as a syntax error); alice still reads the 200 in its sipfrag. Without
    /// a sound card linphonec sends no audio, so no tone proves this path.
    func testWeTransferLinphoneToAnotherClient() throws {
        let setup = try aliceCallsLinphone()
        let (phone, carol, call) = (setup.phone, setup.carol, setup.call)
        defer { phone.stop() }

        call.transfer(to: carol.address)
        XCTAssertTrue(setup.carolCalls.wait { $0.contains("connected") }, "\(setup.carolCalls.callbacks); linphonec:\n\(phone.logTail)")
        // The trace prefixes each message's first line with linphone's log header; the header
        // fields follow on lines of their own.
        let referredBy = phone.sipTrace.split(whereSeparator: \.isNewline).contains { $0.contains("Referred-By:") && $0.contains("alice") }
        XCTAssertTrue(referredBy, "linphone's INVITE to carol names alice in Referred-By")
        XCTAssertTrue(setup.aliceCalls.waitForProgress(.succeeded), "\(setup.aliceCalls.progress); linphonec:\n\(phone.sipTrace.suffix(3_000))")
        XCTAssertEqual(setup.aliceCalls.progress.first, .trying)
        XCTAssertTrue(setup.aliceCalls.wait { $0.contains("disconnected(nil)") }, "\(setup.aliceCalls.callbacks)")
        XCTAssertEqual(call.details.endCause, .transferred)
    }
}
