import Crypto

/// The key of a STUN message's MESSAGE-INTEGRITY (RFC 8489 §9, §14.5): HMAC-SHA1 is keyed with it.
package struct STUNIntegrityKey: Hashable, Sendable {
    /// The key's bytes.
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// A short-term credential's key: the password's UTF-8 bytes after SASLprep (RFC 5389
    /// §15.4). ICE's `ice-pwd` (RFC 8445 §7.2.2) is one: its characters come through unchanged.
    /// - Throws: ``STUNError/badCredentials`` for a password SASLprep prohibits.
    package static func shortTerm(password: String) throws(STUNError) -> STUNIntegrityKey {
        STUNIntegrityKey(bytes: Array(try SASLprep.prepare(password).utf8))
    }

    /// A long-term credential's key (RFC 5389 §15.4, RFC 8489 §9.2.2 with MD5, what TURN
    /// servers use): MD5(username ":" realm ":" SASLprep(password)).
    /// - Throws: ``STUNError/badCredentials`` for a password SASLprep prohibits.
    package static func longTerm(username: String, realm: String, password: String) throws(STUNError) -> STUNIntegrityKey {
        let input = "\(username):\(realm):\(try SASLprep.prepare(password))"
        return STUNIntegrityKey(bytes: Array(Insecure.MD5.hash(data: Array(input.utf8))))
    }

    /// HMAC-SHA1 of `bytes` with this key: MESSAGE-INTEGRITY's value.
    func authenticationCode(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hmac = HMAC<Insecure.SHA1>(key: SymmetricKey(data: self.bytes))
        hmac.update(data: Array(bytes))
        return Array(hmac.finalize())
    }
}
