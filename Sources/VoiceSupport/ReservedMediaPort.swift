#if canImport(Glibc)
    import Glibc
#endif

/// A call's media port, reserved while its SDP was written: the RTP socket bound on it and the
/// RTCP socket on the next port, held open until the call's media stream takes them over
/// (``take()``). Nothing else can bind the ports in between, so the port the SDP announced is
/// the one the stream uses, with no close-and-bind-again race. Sockets nobody took are closed
/// when the reservation is released or goes away.
///
/// Threading: thread-safe; ``take()`` hands the sockets to exactly one caller.
package final class ReservedMediaPort: Sendable, Equatable {
    /// The RTP port (RTCP's is the next one).
    package let port: UInt16
    private let descriptors: Locked<(rtp: Int32, rtcp: Int32)?>

    /// Holds bound sockets `rtp` (on `port`) and `rtcp` (on `port + 1`); a descriptor of -1
    /// means none was bound (a port chosen without sockets, for an in-memory network).
    package init(port: UInt16, rtp: Int32, rtcp: Int32) {
        self.port = port
        self.descriptors = Locked(rtp >= 0 ? (rtp, rtcp) : nil)
    }

    /// A port with no sockets behind it (the media binds it when it starts).
    package convenience init(unboundPort port: UInt16) {
        self.init(port: port, rtp: -1, rtcp: -1)
    }

    /// Takes the bound sockets: the caller owns them (and closes them) from now on. Nil when
    /// there are none, or they were taken or released already.
    package func take() -> (rtp: Int32, rtcp: Int32)? {
        descriptors.withLock { held in
            defer { held = nil }
            return held
        }
    }

    /// Whether the sockets are still held here (not taken, not released).
    package var isHeld: Bool { descriptors.withLock { $0 != nil } }

    /// Runs `body` with the RTP socket, which the reservation keeps (a STUN query or a TURN
    /// allocation from the port, which can take seconds). Nil when there is none.
    ///
    /// `body` gets a duplicate of the descriptor (the same socket, so the same port) and runs
    /// outside the reservation's lock: ``take()``, ``release()`` and ``isHeld`` never wait for
    /// it, and the socket stays open until `body` returns even if the reservation is released
    /// meanwhile. `body` must not close it.
    package func withRTPDescriptor<T: Sendable, E: Error>(_ body: (Int32) throws(E) -> T) throws(E) -> T? {
        let copy = descriptors.withLock { held -> Int32? in
            guard let held else { return nil }
            return fcntl(held.rtp, F_DUPFD_CLOEXEC, 0)
        }
        guard let copy, copy >= 0 else { return nil }
        defer { close(copy) }
        return try body(copy)
    }

    /// Closes the sockets if nobody took them (the call ended before its media started). Idempotent.
    package func release() {
        guard let (rtp, rtcp) = take() else { return }
        close(rtp)
        if rtcp >= 0 { close(rtcp) }
    }

    deinit { release() }

    package static func == (a: ReservedMediaPort, b: ReservedMediaPort) -> Bool { a === b }
}
