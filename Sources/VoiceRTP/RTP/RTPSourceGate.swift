import VoiceSupport
/// Decides which RTP source (SSRC) a stream plays, so that packets from anybody else — a
/// forger who guessed the port, a stale sender, a replay of another call — can neither take
/// the stream over nor reset what is playing.
///
/// A pure value type driven by each packet's SSRC, sequence number and arrival time; it sees
/// packets only after SRTP has authenticated them, so on an encrypted call a source must first
/// hold the key. Then:
/// - The first source is taken once it proves itself with ``minimumRun`` packets in sequence
///   (RFC 3550 A.1 probation).
/// - Another source takes over only with ``minimumRun`` packets in sequence and in a row, none
///   of the current source's between them, and after the current source has been silent for
///   ``takeoverSilence``. A legitimate switch (a PBX bridging another leg) costs that much
///   audio; foreign packets interleaved with a live source never win, however many there are.
/// - ``reset()`` forgets the source, for when signaling names a new peer.
package struct RTPSourceGate: Hashable, Sendable {
    /// What to do with one packet.
    package enum Verdict: Hashable, Sendable {
        /// From the current source.
        case accept
        /// From a source that has just proven itself and is now the current one: whatever
        /// state belonged to the old source (statistics, jitter buffer) starts anew.
        case acceptNewSource
        /// From a source still proving itself, the first one of the call.
        case probation
        /// From a source other than the current one; not played, not counted.
        case foreign
    }

    /// Packets in sequence a source must send before it is taken.
    package let minimumRun: Int
    /// How long the current source must have been silent before another takes over.
    package let takeoverSilence: MediaTime

    /// How many sources may be proving themselves at once.
    package static let candidateSlots = 4

    /// The source being played, if any.
    package private(set) var current: UInt32?
    private var lastCurrentArrival = MediaTime.zero
    private var candidates: [Candidate]

    private struct Candidate: Hashable, Sendable {
        var ssrc: UInt32
        var nextSequence: UInt16
        var run: Int
        var lastArrival: MediaTime
    }

    /// - Parameters:
    ///   - minimumRun: packets in sequence needed to take a source (at least 2).
    ///   - takeoverSilence: how long a current source must be silent before another replaces it.
    package init(minimumRun: Int = 3, takeoverSilence: MediaTime = .milliseconds(100)) {
        self.minimumRun = max(2, minimumRun)
        self.takeoverSilence = takeoverSilence
        candidates = []
        candidates.reserveCapacity(Self.candidateSlots)
    }

    /// Judges one authenticated packet. Allocates nothing.
    package mutating func admit(ssrc: UInt32, sequenceNumber: UInt16, arrival: MediaTime) -> Verdict {
        if let current, ssrc == current {
            lastCurrentArrival = arrival
            var i = 0
            while i < candidates.count {  // a run must be unbroken by the live source
                candidates[i].run = 0
                i += 1
            }
            return .accept
        }
        guard let slot = slot(for: ssrc, arrival: arrival) else { return current == nil ? .probation : .foreign }
        if candidates[slot].nextSequence == sequenceNumber, candidates[slot].run > 0 {
            candidates[slot].run += 1
        } else {
            candidates[slot].run = 1
        }
        candidates[slot].nextSequence = sequenceNumber &+ 1
        candidates[slot].lastArrival = arrival
        guard candidates[slot].run >= minimumRun else { return current == nil ? .probation : .foreign }
        if current == nil {
            take(ssrc, arrival: arrival)
            return .accept
        }
        guard arrival - lastCurrentArrival >= takeoverSilence else { return .foreign }
        take(ssrc, arrival: arrival)
        return .acceptNewSource
    }

    /// Forgets the current source and every candidate.
    package mutating func reset() {
        current = nil
        candidates.removeAll(keepingCapacity: true)
    }

    /// The candidate slot of `ssrc`: its own, a free one, or one whose source has gone quiet.
    /// A flood of new SSRCs cannot push out a source that keeps sending.
    private mutating func slot(for ssrc: UInt32, arrival: MediaTime) -> Int? {
        var i = 0
        var stalest: Int?
        while i < candidates.count {
            if candidates[i].ssrc == ssrc { return i }
            if arrival - candidates[i].lastArrival >= takeoverSilence,
                stalest.map({ candidates[i].lastArrival < candidates[$0].lastArrival }) ?? true
            {
                stalest = i
            }
            i += 1
        }
        let fresh = Candidate(ssrc: ssrc, nextSequence: 0, run: 0, lastArrival: arrival)
        if candidates.count < Self.candidateSlots {
            candidates.append(fresh)
            return candidates.count - 1
        }
        guard let stalest else { return nil }
        candidates[stalest] = fresh
        return stalest
    }

    private mutating func take(_ ssrc: UInt32, arrival: MediaTime) {
        current = ssrc
        lastCurrentArrival = arrival
        candidates.removeAll(keepingCapacity: true)
    }
}
