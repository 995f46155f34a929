import VoiceSupport
import XCTest

@testable import VoiceCore

/// Media liveness from RTP and the peer's RTCP (the pure rules); the calls that use it are in
/// ``CallMediaLivenessCallTests``.
final class CallMediaLivenessTests: XCTestCase {
    func testWithoutRTCPOnlyRTPCounts() {
        var liveness = CallMediaLiveness()
        XCTAssertEqual(
            liveness.observe(packetsReceived: 0, peerReports: 0, remoteSenderPacketCount: nil, now: .seconds(1)), .seconds(3),
            "before anything arrived, silence counts from 6 s in: 3 s of grace for a 3 s threshold")
        XCTAssertEqual(liveness.observe(packetsReceived: 50, peerReports: 0, remoteSenderPacketCount: nil, now: .seconds(2)), .seconds(2))
        XCTAssertEqual(liveness.observe(packetsReceived: 50, peerReports: 0, remoteSenderPacketCount: nil, now: .seconds(9)), .seconds(2))
    }

    func testAQuietPeersReceiverReportsAreEvidenceWhileFresh() {
        var liveness = CallMediaLiveness()
        _ = liveness.observe(packetsReceived: 100, peerReports: 0, remoteSenderPacketCount: nil, now: .seconds(2))
        // RTP stops; receiver reports (no sender count) keep coming.
        XCTAssertEqual(liveness.observe(packetsReceived: 100, peerReports: 1, remoteSenderPacketCount: nil, now: .seconds(5)), .seconds(5))
        XCTAssertEqual(liveness.observe(packetsReceived: 100, peerReports: 1, remoteSenderPacketCount: nil, now: .milliseconds(17_500)), .milliseconds(17_500))
        XCTAssertEqual(
            liveness.observe(packetsReceived: 100, peerReports: 1, remoteSenderPacketCount: nil, now: .milliseconds(17_501)), .seconds(2),
            "a report older than 12.5 s is no evidence")
    }

    func testSenderReportsWhoseCountStandsStillMeanAQuietPeer() {
        var liveness = CallMediaLiveness()
        _ = liveness.observe(packetsReceived: 250, peerReports: 1, remoteSenderPacketCount: 252, now: .seconds(5))
        XCTAssertEqual(liveness.observe(packetsReceived: 250, peerReports: 2, remoteSenderPacketCount: 252, now: .seconds(10)), .seconds(10))
        XCTAssertEqual(liveness.observe(packetsReceived: 250, peerReports: 2, remoteSenderPacketCount: 252, now: .seconds(12)), .seconds(12))
    }

    func testSenderReportsThatCountPacketsWeDoNotGetMeanABrokenPath() {
        var liveness = CallMediaLiveness()
        _ = liveness.observe(packetsReceived: 250, peerReports: 1, remoteSenderPacketCount: 252, now: .seconds(5))
        // The peer sent 250 more; none arrived: only RTP counts, and the last was at 5 s.
        XCTAssertEqual(liveness.observe(packetsReceived: 250, peerReports: 2, remoteSenderPacketCount: 502, now: .seconds(10)), .seconds(5))
    }

    /// An outage after a healthy stretch: the last report came from a peer that was sending, so
    /// it vouches for nothing after it, and the silence counts from the last RTP packet.
    func testAnOutageAfterASendingPeersReportIsNotMaskedByIt() {
        var liveness = CallMediaLiveness()
        _ = liveness.observe(packetsReceived: 200, peerReports: 1, remoteSenderPacketCount: 210, now: .seconds(4))
        _ = liveness.observe(packetsReceived: 450, peerReports: 2, remoteSenderPacketCount: 455, now: .seconds(9))
        XCTAssertEqual(liveness.observe(packetsReceived: 450, peerReports: 2, remoteSenderPacketCount: 455, now: .seconds(13)), .seconds(9))
    }
}
