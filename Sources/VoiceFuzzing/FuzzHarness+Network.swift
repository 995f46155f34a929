import VoiceNetwork

extension FuzzHarness {
    static let network: [FuzzHarness] = [
        FuzzHarness(name: "stun", summary: "a STUN datagram: parse, check MESSAGE-INTEGRITY and FINGERPRINT, sign again") { bytes in
            _ = STUNMessage.checkFingerprint(of: bytes)
            guard let key = try? STUNIntegrityKey.shortTerm(password: "VOkJxbRl1RmTxUk/WvJxBt") else { return }
            _ = STUNMessage.checkIntegrity(of: bytes, key: key)
            guard var message = try? STUNMessage(parsing: bytes) else { return }
            _ = try? STUNMappedAddress(response: message)
            // Room for the two attributes within the 16-bit length.
            guard bytes.count < 65_000 else { return }
            // What we sign ourselves must check, whatever the attributes were.
            message.attributes.removeAll {
                $0.type == STUNMessage.Attribute.messageIntegrity || $0.type == STUNMessage.Attribute.fingerprint
            }
            let signed = message.serialized(integrity: key, fingerprint: true)
            precondition(STUNMessage.checkIntegrity(of: signed, key: key) == .valid, "our own MESSAGE-INTEGRITY checks")
            precondition(STUNMessage.checkFingerprint(of: signed) == true, "our own FINGERPRINT checks")
        },
    ]
}
