import VoiceSupport
/// The master key and master salt for one direction of an SRTP session, for one ``SRTPSuite``.
///
/// Key bytes never appear in `description`, `debugDescription` or `dump` output. Equality is
/// checked in constant time. Value type; safe to share between threads.
package struct SRTPKeyMaterial: Sendable {
    /// The suite these keys are sized for.
    package let suite: SRTPSuite
    /// Master key followed by master salt (``SRTPSuite/keyMaterialLength`` bytes).
    package let keyAndSalt: [UInt8]
    /// Key lifetime in packets from the SDES `|lifetime` field, if one was given. Informational:
    /// libsrtp enforces its own limits (2^48 SRTP, 2^31 SRTCP packets); rekeying earlier is up
    /// to the signalling layer.
    package var lifetime: UInt64?
    /// The master key identifier carried in each packet, if the peer asked for one.
    package var mki: SRTPMasterKeyIdentifier?

    /// Creates key material from master key || master salt.
    /// - Throws: ``SRTPKeyMaterialError/wrongLength(suite:expected:actual:)`` if the length is not the suite's.
    package init(
        suite: SRTPSuite,
        keyAndSalt: [UInt8],
        lifetime: UInt64? = nil,
        mki: SRTPMasterKeyIdentifier? = nil
    ) throws(SRTPKeyMaterialError) {
        guard keyAndSalt.count == suite.keyMaterialLength else {
            throw .wrongLength(suite: suite, expected: suite.keyMaterialLength, actual: keyAndSalt.count)
        }
        self.init(unchecked: suite, keyAndSalt: keyAndSalt)
        self.lifetime = lifetime
        self.mki = mki
    }

    /// Creates key material from a separate master key and master salt.
    /// - Throws: ``SRTPKeyMaterialError/wrongLength(suite:expected:actual:)`` if either length is wrong.
    package init(suite: SRTPSuite, masterKey: [UInt8], masterSalt: [UInt8]) throws(SRTPKeyMaterialError) {
        guard masterKey.count == suite.masterKeyLength, masterSalt.count == suite.masterSaltLength else {
            throw .wrongLength(suite: suite, expected: suite.keyMaterialLength, actual: masterKey.count + masterSalt.count)
        }
        try self.init(suite: suite, keyAndSalt: masterKey + masterSalt)
    }

    package init(unchecked suite: SRTPSuite, keyAndSalt: [UInt8]) {
        self.suite = suite
        self.keyAndSalt = keyAndSalt
    }

    /// Fresh random key material for `suite` from the system's cryptographically secure
    /// generator (`getrandom(2)` on Linux).
    package static func random(for suite: SRTPSuite) -> SRTPKeyMaterial {
        var generator = SecureRandomNumberGenerator()
        return random(for: suite, using: &generator)
    }

    /// Random key material drawn from `generator`. Use only a cryptographically secure generator
    /// outside tests.
    package static func random<G: RandomNumberGenerator>(for suite: SRTPSuite, using generator: inout G) -> SRTPKeyMaterial {
        var bytes = [UInt8]()
        bytes.reserveCapacity(suite.keyMaterialLength + 7)
        while bytes.count < suite.keyMaterialLength {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return SRTPKeyMaterial(unchecked: suite, keyAndSalt: Array(bytes.prefix(suite.keyMaterialLength)))
    }

    /// The master key bytes.
    package var masterKey: [UInt8] { Array(keyAndSalt.prefix(suite.masterKeyLength)) }
    /// The master salt bytes.
    package var masterSalt: [UInt8] { Array(keyAndSalt.suffix(suite.masterSaltLength)) }
}

extension SRTPKeyMaterial: Equatable {
    /// Compares suite, lifetime and MKI, and the key bytes in constant time.
    package static func == (a: SRTPKeyMaterial, b: SRTPKeyMaterial) -> Bool {
        guard a.suite == b.suite, a.lifetime == b.lifetime, a.mki == b.mki,
            a.keyAndSalt.count == b.keyAndSalt.count
        else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a.keyAndSalt, b.keyAndSalt) { difference |= x ^ y }
        return difference == 0
    }
}

extension SRTPKeyMaterial: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the suite and hides the key.
    package var description: String { "SRTPKeyMaterial(\(suite), key redacted)" }
    /// Same as ``description``: the key is never printed.
    package var debugDescription: String { description }
    /// Shows only the suite, so `dump` cannot print the key.
    package var customMirror: Mirror { Mirror(self, children: ["suite": suite], displayStyle: .struct) }
}
