#if canImport(Glibc)
    import Glibc
#endif

/// A connected socket made before its user exists (a TURN server's TCP connection, opened while
/// a call's SDP was written), held until the user takes it over (``take()``); closed when it
/// is released, or goes away, untaken.
///
/// Threading: thread-safe; ``take()`` hands the descriptor to exactly one caller.
package final class ReservedSocket: Sendable {
    private let descriptor: Locked<Int32?>

    package init(_ descriptor: Int32) {
        self.descriptor = Locked(descriptor)
    }

    /// Takes the descriptor: the caller owns (and closes) it from now on. Nil once taken or released.
    package func take() -> Int32? {
        descriptor.withLock { held in
            defer { held = nil }
            return held
        }
    }

    /// Runs `body` with the descriptor while it is still held here (nil otherwise).
    package func withDescriptor<T: Sendable>(_ body: (Int32) -> T) -> T? {
        descriptor.withLock { held -> T? in
            guard let held else { return nil }
            return body(held)
        }
    }

    /// Closes the descriptor if nobody took it. Idempotent.
    package func release() {
        guard let held = take() else { return }
        close(held)
    }

    deinit { release() }
}
