/// A connection made before its user exists (a TURN server's TCP or TLS connection, opened
/// while a call's SDP was written), held until the user takes it over (``take(as:)``). One
/// nobody took is dropped (and so closed) when released or when this goes away.
///
/// Threading: thread-safe; ``take(as:)`` hands the connection to exactly one caller.
package final class ReservedConnection: Sendable {
    private let held: Locked<(any AnyObject & Sendable)?>

    package init(_ connection: any AnyObject & Sendable) {
        held = Locked(connection)
    }

    /// Takes the connection if it is a `T`: the caller owns it from now on.
    package func take<T: AnyObject & Sendable>(as type: T.Type) -> T? {
        held.withLock { connection in
            guard let typed = connection as? T else { return nil }
            connection = nil
            return typed
        }
    }

    /// Drops the connection if nobody took it. Idempotent.
    package func release() {
        held.withLock { $0 = nil }
    }
}
