/// A certificate fingerprint as SDP's `a=fingerprint` carries it (RFC 8122): a hash function's name
/// and the digest of the DER certificate.
package struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash function, lowercased as RFC 8122 registers it (`sha-256`). Peers write either case.
    package let algorithm: String
    /// The digest bytes.
    package let bytes: [UInt8]

    /// A fingerprint; `algorithm` is lowercased.
    package init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// The digest as SDP writes it: uppercase hex pairs separated by colons.
    package var hex: String {
        bytes.map { String([Self.hexDigits[Int($0 >> 4)], Self.hexDigits[Int($0 & 0x0F)]]) }.joined(separator: ":")
    }

    package var description: String { "\(algorithm) \(hex)" }

    private static let hexDigits = Array("0123456789ABCDEF")

    /// The hash functions this side can check: RFC 8122's SHA family.
    package static let supportedAlgorithms: Set<String> = ["sha-1", "sha-224", "sha-256", "sha-384", "sha-512"]

    /// Whether ``algorithm`` is one of ``supportedAlgorithms``.
    package var isSupported: Bool { Self.supportedAlgorithms.contains(algorithm) }
}
