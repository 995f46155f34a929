import VoiceSupport

/// Whether the peer's media path is alive, from more than RTP: a peer may legitimately send
/// no RTP for a while (silence suppression without comfort noise, a player that has not
/// started) while its RTCP keeps arriving. Fed the stream's counters once a tick, it gives the
/// time of the latest evidence the call state machine measures silence from:
/// - RTP arriving is evidence, as before;
/// - a report saying the peer is quiet (a receiver report, or a sender report whose packet
///   count has not moved since the previous report) makes the path count as alive while the
///   reports keep coming (each within ``reportFreshness`` of the last);
/// - a report from a peer that is sending (its count moved) says nothing about the path after
///   it: when that peer's RTP stops, the RTP silence rule applies at once, so an outage is
///   still seen within the silence threshold;
/// - before the first RTP or RTCP packet, silence counts only from ``initialGrace`` after the
///   media started (RFC 3550's first report comes 2.5–3.75 s in), so a peer whose player starts
///   late is not reported reconnecting three seconds into a healthy call.
/// Pure: the driver passes its clock's time.
package struct CallMediaLiveness: Sendable {
    /// How long a report counts as evidence: 2.5 RTCP intervals of 5 s.
    package var reportFreshness = MediaTime.milliseconds(12_500)
    /// How long after the media started silence may last before anything arrived.
    package var initialGrace = MediaTime.milliseconds(6_000)
    /// When the media started, and the state machine's silence threshold.
    private let startedAt: MediaTime
    private let silenceThreshold: MediaTime

    private var packets: UInt64 = 0
    private var lastPacketAt: MediaTime?
    private var reports: UInt64 = 0
    private var lastReportAt: MediaTime?
    /// The sender packet count at the previous report (nil: none, or receiver reports only).
    private var senderCount: UInt32?
    private var peerQuiet = false

    package init(startedAt: MediaTime = .zero, silenceThreshold: MediaTime = .milliseconds(3_000)) {
        self.startedAt = startedAt
        self.silenceThreshold = silenceThreshold
    }

    /// The latest evidence that media can reach us.
    package mutating func observe(
        packetsReceived: UInt64, peerReports: UInt64, remoteSenderPacketCount: UInt32?, now: MediaTime
    ) -> MediaTime? {
        if packetsReceived > packets {
            packets = packetsReceived
            lastPacketAt = now
        }
        if peerReports > reports {
            let first = reports == 0
            reports = peerReports
            lastReportAt = now
            // Quiet: no sender report yet, a count still at zero, or one that has not moved.
            peerQuiet = remoteSenderPacketCount.map { $0 == 0 || (!first && $0 == senderCount) } ?? true
            senderCount = remoteSenderPacketCount
        }
        if lastPacketAt == nil, lastReportAt == nil {
            // Nothing yet: the machine's silence rule fires `initialGrace` after the start.
            return startedAt + max(.zero, initialGrace - silenceThreshold)
        }
        guard peerQuiet, let report = lastReportAt, now - report <= reportFreshness else { return lastPacketAt }
        return now
    }
}
