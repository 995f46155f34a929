import VoiceSupport

/// Makes the random identifiers a user agent puts in its messages: tags (RFC 3261 §19.3), Call-IDs
/// (§8.1.1.4) and RFC 3261 branches (§8.1.1.7, starting with the magic cookie). Each has at least
/// 64 random bits, drawn from the generator it is given so tests can be deterministic.
package enum SIPIdentifierGenerator {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// A random token of `length` lowercase letters and digits (about 5.17 bits each).
    package static func token(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(length)
        for _ in 0..<max(0, length) {
            bytes.append(alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A From/To tag: 16 characters (82 bits).
    package static func tag(using generator: inout some RandomNumberGenerator) -> String {
        token(length: 16, using: &generator)
    }

    /// A Call-ID: 24 characters (124 bits), `@host` appended when a host is given.
    package static func callID(host: String? = nil, using generator: inout some RandomNumberGenerator) -> String {
        let local = token(length: 24, using: &generator)
        guard let host, !host.isEmpty else { return local }
        return local + "@" + host
    }

    /// A Via branch: `z9hG4bK` and 20 characters (103 bits).
    package static func branch(using generator: inout some RandomNumberGenerator) -> String {
        SIPVia.magicCookie + token(length: 20, using: &generator)
    }

    /// A tag from the system generator.
    package static func tag() -> String {
        var generator = SecureRandomNumberGenerator()
        return tag(using: &generator)
    }

    /// A Call-ID from the system generator.
    package static func callID(host: String? = nil) -> String {
        var generator = SecureRandomNumberGenerator()
        return callID(host: host, using: &generator)
    }

    /// A branch from the system generator.
    package static func branch() -> String {
        var generator = SecureRandomNumberGenerator()
        return branch(using: &generator)
    }
}
