import VoiceICE
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// A media path's figures, for the stream's stats and the security counters.
package struct MediaPathFigures: Sendable, Equatable {
    /// The pair ICE selected last; nil before one is, and without ICE.
    package var selectedPair: ICESelectedPair?
    package var dtlsState = DTLSTransportState.new
    /// The SRTP suite the handshake chose.
    package var srtpSuite: SRTPSuite?
    /// Connectivity checks refused (bad integrity or fingerprint, a wrong username), and checks
    /// straight to the port refused under a relay-only policy.
    package var refusedChecks: UInt64 = 0
    /// RTP and RTCP that came before the keys: not played.
    package var packetsBeforeKeys: UInt64 = 0
    /// DTLS datagrams from an address that is not the peer's proven path: dropped.
    package var offPathDTLS: UInt64 = 0
    /// ICE restarts taken (the host moved, or the peer restarted).
    package var iceRestarts = 0
    /// How many candidates the peer gave (for a failure that names them).
    package var remoteCandidates = 0
    /// When the path started, when it first had a route to the peer (ICE selected a pair, or
    /// the peer's handshake came over a proven address before that), and when the keys were in.
    package var startedAt: MediaTime?
    package var routedAt: MediaTime?
    package var keyedAt: MediaTime?

    package init() {}

    /// Adds the figures to a stream's stats.
    package func add(to s: inout AudioStreamStats) {
        s.selectedCandidatePair = selectedPair
        s.dtlsState = dtlsState
        s.dtlsSRTPSuite = srtpSuite
        s.stunIntegrityFailures = refusedChecks
        s.offPathDTLSDatagrams = offPathDTLS
        s.packetsBeforeKeys = packetsBeforeKeys
        if let startedAt, let routedAt {
            s.iceConnectMilliseconds = max(0, (routedAt - startedAt).milliseconds)
        }
        if let keyedAt, let from = routedAt ?? startedAt {
            s.dtlsHandshakeMilliseconds = max(0, (keyedAt - from).milliseconds)
        }
    }
}
