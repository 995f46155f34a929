import VoiceAddress
import VoiceDNS
import VoiceSIPAgent
import VoiceSTUN
import VoiceDTLS
import VoiceICE
import VoiceNetwork
import VoiceSupport

extension FuzzHarness {
    static let network: [FuzzHarness] = [
        FuzzHarness(name: "dns", summary: "a DNS answer: parse, read it for its question, order its SRV records, write it and read it back") { bytes in
            guard let message = try? DNSMessage(parsing: bytes) else { return }
            if let answer = try? DNSAnswer(message, for: message.question) {
                precondition(answer.records.allSatisfy { $0.type == message.question.type }, "only records of the asked type")
                let services = answer.records.compactMap { if case .srv(let srv) = $0 { srv } else { nil } }
                var random = SystemRandomNumberGenerator()
                let ordered = SIPServerLocation.ordered(services, using: &random)
                precondition(ordered.count == services.count && Set(ordered) == Set(services), "SRV order is a permutation")
                precondition(zip(ordered, ordered.dropFirst()).allSatisfy { $0.priority <= $1.priority }, "by priority")
            }
            // What was read writes back to the same message, unless a record of a known type
            // was kept by type only (another class), which has no data to write.
            let known: Set<DNSRecordType> = [.a, .aaaa, .cname, .srv, .naptr, .soa]
            let records = message.answers + message.authorities + message.additionals
            guard !records.contains(where: { if case .other(let type) = $0.data { known.contains(type) } else { false } }) else { return }
            precondition((try? DNSMessage(parsing: message.serialized())) == message, "a parsed message writes back to itself")
        },
        FuzzHarness(name: "mdns", summary: "a multicast DNS response (RFC 6762): parse, read every name's addresses") { bytes in
            guard let response = try? MulticastDNSResponse(parsing: bytes) else { return }
            for record in response.records {
                let addresses = response.addresses(of: record.name)
                precondition(
                    addresses.allSatisfy { ip in response.records.contains { $0.name == record.name && $0.ttl > 0 && $0.data == .address(ip) } },
                    "only live address records of the name answer")
            }
        },
        FuzzHarness(name: "stun", summary: "a STUN datagram: parse, check MESSAGE-INTEGRITY and FINGERPRINT, sign again") { bytes in
            _ = STUNMessage.checkFingerprint(of: bytes)
            guard let key = try? STUNIntegrityKey.shortTerm(password: "VOkJxbRl1RmTxUk/WvJxBt") else { return }
            _ = STUNMessage.checkIntegrity(of: bytes, key: key)
            guard var message = try? STUNMessage(parsing: bytes) else { return }
            _ = try? TransportAddress(stunResponse: message)
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
        FuzzHarness(name: "ice-turn", summary: "a datagram at an ICE agent's port and from a TURN server: checks, answers, ChannelData") { bytes in
            var agent = FuzzICE.agent
            let base = FuzzICE.base
            _ = agent.receive(bytes, from: FuzzICE.peer, on: base, now: .seconds(1))
            _ = agent.tick(now: .seconds(2))
            var turn = FuzzICE.turn
            _ = turn.receive(bytes, now: .seconds(1))
            _ = TURN.readChannelData(bytes)
        },
        FuzzHarness(
            name: "dtls", summary: "datagrams at a DTLS-SRTP association (the shim boundary): a server waiting for a ClientHello, a client after its hello"
        ) { bytes in
            // Two-byte big-endian lengths split the input into datagrams (up to 8).
            var datagrams: [[UInt8]] = []
            var rest = bytes[...]
            while rest.count >= 2, datagrams.count < 8 {
                let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
                rest = rest.dropFirst(2)
                datagrams.append(Array(rest.prefix(length)))
                rest = rest.dropFirst(length)
            }
            if datagrams.isEmpty { datagrams = [bytes] }
            for role in [DTLSRole.server, .client] {
                guard
                    let association = try? DTLSAssociation(
                        certificate: FuzzDTLS.certificate, role: role, remoteFingerprints: [FuzzDTLS.certificate.fingerprint])
                else { return }
                _ = association.start(now: .zero)
                for datagram in datagrams { _ = association.receive(datagram, now: .milliseconds(10)) }
                _ = association.tick(now: .seconds(11))
                _ = association.close()
            }
        },
    ]
}

/// One agent with a peer's parameters set, and a TURN client that has started, copied for each input.
private enum FuzzICE {
    struct Fixed: RandomNumberGenerator, Sendable {
        var state: UInt64 = 7
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            return state
        }
    }
    static let base = TransportAddress(ip: IPAddress("10.0.0.1")!, port: 5000)
    static let peer = TransportAddress(ip: IPAddress("10.0.0.2")!, port: 6000)
    static let agent: ICEAgent = {
        let local = ICECredentials(usernameFragment: "evtj", password: "VOkJxbRl1RmTxUk/WvJxBt")
        var agent = ICEAgent(
            credentials: local, candidates: [ICECandidate.local(.host, address: base, base: base)], isControlling: true, random: Fixed())
        _ = agent.setRemote(
            credentials: ICECredentials(usernameFragment: "h6vY", password: "PsWCSkHQZxEX/VGFJCnIe45g"),
            candidates: [ICECandidate.local(.host, address: peer, base: peer)], isLite: false, now: .zero)
        _ = agent.tick(now: .milliseconds(10))
        return agent
    }()
    static let turn: TURNClient = {
        // A dual allocation asked for: answers with several relayed addresses and address errors are read.
        var client = TURNClient(username: "alice", password: "secret", asksForIPv6: true, random: Fixed())
        _ = client.start(now: .zero)
        return client
    }()
}

/// One certificate for every input (making one costs an EC key generation).
private enum FuzzDTLS {
    static let certificate: DTLSCertificate = {
        guard let made = try? DTLSCertificate.generate(commonName: "fuzz") else { preconditionFailure("no DTLS certificate") }
        return made
    }()
}
