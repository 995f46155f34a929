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
    /// How our TURN server is reached, when there is one (the relayed candidate's protocol).
    package var relayTransport: TURNServer.Transport?
    /// The agent's candidates and pairs as of its last change; rebuilt only when the agent's
    /// ``ICEAgent/statisticsGeneration`` moves, so a snapshot of the figures costs no allocation.
    package private(set) var ice: ICEStatistics?
    /// Which agent and generation ``ice`` shows: restarts, then the agent's generation.
    private var iceShown: ICEShown?

    private struct ICEShown: Equatable, Sendable {
        var restarts: Int
        var generation: UInt64
    }
    /// What media each selected pair carried.
    package var traffic = ICETrafficLedger()

    package init() {}

    /// Takes the agent's candidates and pairs if they changed since last shown.
    mutating func show(_ agent: ICEAgent) {
        let now = ICEShown(restarts: iceRestarts, generation: agent.statisticsGeneration)
        guard now != iceShown else { return }
        ice = agent.statistics
        iceShown = now
    }

    /// Adds the figures to a stream's stats.
    package func add(to s: inout AudioStreamStats) {
        s.selectedCandidatePair = selectedPair
        s.dtlsState = dtlsState
        s.dtlsSRTPSuite = srtpSuite
        s.stunIntegrityFailures = refusedChecks
        s.offPathDTLSDatagrams = offPathDTLS
        s.packetsBeforeKeys = packetsBeforeKeys
        s.iceStatistics = ice
        s.iceTraffic = traffic
        s.relayTransport = relayTransport
        if let startedAt, let routedAt {
            s.iceConnectMilliseconds = max(0, (routedAt - startedAt).milliseconds)
        }
        if let keyedAt, let from = routedAt ?? startedAt {
            s.dtlsHandshakeMilliseconds = max(0, (keyedAt - from).milliseconds)
        }
    }
}
