import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport

/// A call through a real NAT: our client (`voicecall` at 10.0.0.2) sits in a namespace behind a
/// router namespace that masquerades it (an nftables `masquerade` rule) to 10.5.0.1; a provider
/// namespace holds Kamailio (registrar and record-routing proxy), coturn (STUN) and the far
/// party (`voicecall`), all on 10.9.0.1. The provider has no route to the private network:
/// whatever reaches our client goes through the NAT's mappings. Needs root, iproute2, nftables,
/// Kamailio and coturn.
package struct NATCall {
    package struct Result {
        package var natedLog: String
        package var farLog: String
        package var kamailioLog: String
        package var coturnLog: String
        package var natedExit: Int32?
        package var farExit: Int32?
        package var natedCallbacks: [String]
        package var gapMilliseconds: [String: Int]
        /// What each side ("nated", "far") heard, and what the other played.
        package var heard: [String: [Int16]]
        package var played: [String: [Int16]]
    }

    package let voicecall: String
    package let directory: String
    package var callSeconds = 8

    package init(voicecall: String, directory: String) {
        self.voicecall = voicecall
        self.directory = directory
    }

    /// The three namespaces, linked, addressed and routed, the router masquerading.
    private func makeTopology() throws -> (client: NetworkNamespace, router: NetworkNamespace, provider: NetworkNamespace) {
        let client = try NetworkNamespace(prefix: "nc")
        let router = try NetworkNamespace(prefix: "nr")
        let provider = try NetworkNamespace(prefix: "np")
        try Self.link(client, behind: router, to: provider, subnet: "10.0.0", outside: "10.5.0", interfaces: ("n0", "r0", "r1", "p0"))
        try provider.batch("addr add 10.9.0.1/32 dev lo")
        return (client, router, provider)
    }

    /// Links `inside` (`<subnet>.2`) to `nat` (`<subnet>.1` inside, `<outside>.1` outside, masquerading)
    /// and `nat` to `provider` (`<outside>.2`), with routes to the provider's 10.9.0.1;
    /// `interfaces` names the veth ends: inside's, nat's inner and outer, provider's.
    static func link(
        _ inside: NetworkNamespace, behind nat: NetworkNamespace, to provider: NetworkNamespace, subnet: String, outside: String,
        interfaces: (String, String, String, String)
    ) throws {
        let (own, inner, outer, far) = interfaces
        try NetworkNamespace.run(["link", "add", own, "netns", inside.name, "type", "veth", "peer", "name", inner, "netns", nat.name])
        try NetworkNamespace.run(["link", "add", outer, "netns", nat.name, "type", "veth", "peer", "name", far, "netns", provider.name])
        try inside.batch("link set \(own) up", "addr add \(subnet).2/24 dev \(own)", "route add default via \(subnet).1")
        try nat.batch(
            "link set \(inner) up", "link set \(outer) up", "addr add \(subnet).1/24 dev \(inner)", "addr add \(outside).1/24 dev \(outer)",
            "route add 10.9.0.1/32 via \(outside).2")
        try nat.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
        try nat.exec("nft", "add table ip nat")
        try nat.exec("nft", "add chain ip nat postrouting { type nat hook postrouting priority 100 ; }")
        try nat.exec("nft", "add rule ip nat postrouting oifname \(outer) masquerade")
        try provider.batch("link set \(far) up", "addr add \(outside).2/24 dev \(far)")
    }

    /// Without STUN: our client behind the NAT calls `bob` through Kamailio and hangs up after
    /// ``callSeconds``. Its Contact and SDP name its private address; the call works through
    /// rport (responses to where the request came from) and the far party following our
    /// authenticated media (symmetric RTP).
    package func runWithoutSTUN() throws -> Result {
        try run(stun: false)
    }

    /// With STUN (coturn): our client learns the NAT's address for its SIP socket and its media
    /// port, registers with it, and is called by name through Kamailio; the far party hangs up.
    package func runWithSTUN() throws -> Result {
        try run(stun: true)
    }

    /// Behind a firewall that lets only SIP (5060) and TURN (3478) out over UDP, as enterprise
    /// networks do: our client calls `bob` through Kamailio, with coturn as its TURN server
    /// when `turn` is true (ICE then finds the relayed pair; the direct ones are dropped), or
    /// without one (no media path can exist).
    package func runThroughAFirewallThatOnlyPassesTURN(turn: Bool) throws -> Result {
        try run(stun: false, firewall: .udpToSIPAndTURN, turn: turn)
    }

    /// Behind a firewall that lets no UDP out but SIP's: the TURN server is reached over TCP
    /// (`turn:…?transport=tcp`, RFC 8656 over TCP) and relays to the far party over UDP.
    package func runThroughAFirewallThatBlocksUDPWithTURNOverTCP() throws -> Result {
        try run(stun: false, firewall: .udpToSIPOnly, turn: true, turnOverTCP: true)
    }

    /// As ``runWithSTUNAndRenumbering()``, our client relay-only through coturn: its offer and
    /// the move's ICE restart carry only a relayed candidate (a new allocation from the new
    /// address), and the audio goes on through the relay.
    package func runRelayOnlyWithRenumbering() throws -> Result {
        try run(stun: true, renumberAfter: 3, turn: true, relayOnly: true)
    }

    /// What the router lets out of the private network over UDP.
    private enum Firewall {
        case udpToSIPAndTURN, udpToSIPOnly
    }

    /// With STUN, and the client's address behind the NAT renumbered (10.0.0.2 to 10.0.0.3)
    /// 3 s into the call: the client (`--listen auto`) learns its new NAT mapping with STUN,
    /// re-registers and re-INVITEs with it; the far party's BYE reaches it there.
    package func runWithSTUNAndRenumbering() throws -> Result {
        try run(stun: true, renumberAfter: 3)
    }

    private func run(
        stun: Bool, renumberAfter: Double? = nil, firewall: Firewall? = nil, turn: Bool = false, turnOverTCP: Bool = false,
        relayOnly: Bool = false
    ) throws -> Result {
        let (client, router, provider) = try makeTopology()
        if let firewall {
            try router.exec("nft", "add table ip filter")
            try router.exec("nft", "add chain ip filter forward { type filter hook forward priority 0 ; }")
            switch firewall {
            case .udpToSIPAndTURN: try router.exec("nft", "add rule ip filter forward iifname r0 udp dport != { 3478, 5060 } drop")
            case .udpToSIPOnly: try router.exec("nft", "add rule ip filter forward iifname r0 udp dport != 5060 drop")
            }
        }
        defer {
            client.delete()
            router.delete()
            provider.delete()
        }
        let kamailio = try NamespaceScenario.kamailio(in: provider)
        defer { kamailio.stop() }
        let configuration = kamailio.configuration
        let coturn = try SIPPeerProcess(
            name: "coturn", executable: NetworkNamespace.ipPath,
            arguments: [
                "netns", "exec", provider.name, "turnserver", "-n", "-v", "--listening-ip=10.9.0.1", "--listening-port=3478",
                "--no-tls", "--no-dtls", "--no-cli", "--log-file=stdout", "--simple-log", "--pidfile=\(directory)/turnserver.pid",
            ] + (turn
                ? ["--relay-ip=10.9.0.1", "--min-port=49152", "--max-port=49300", "--lt-cred-mech", "--user=alice:secret", "--realm=example.org"]
                : ["--stun-only"]),
            workingDirectory: directory, logPath: directory + "/coturn.log")
        defer { coturn.stop() }
        let (natedPlays, farPlays) = try NamespaceScenario.writeTones(to: directory, names: ("nated", "far"))
        let common = ["--domain", configuration.realm, "--proxy", "sip:10.9.0.1:5060", "--allow-clear-text-keys"]
        let nated: SIPPeerProcess
        let far: SIPPeerProcess
        if stun || turn {
            guard PollingWait.until(timeout: 10, { coturn.log.contains("Total General servers") }) else {
                throw NetworkNamespaceError("coturn did not start:\n\(coturn.logTail())")
            }
        }
        let relay =
            turn
            ? ["--turn", "turn:10.9.0.1:3478" + (turnOverTCP ? "?transport=tcp" : ""), "--turn-username", "alice", "--turn-password", "secret"]
                + (relayOnly ? ["--relay-only"] : []) : []
        if stun {
            nated = try process(
                "nated", in: client,
                ["listen", "--identity", "alice", "--password", "alicepass", "--listen", renumberAfter == nil ? "10.0.0.2" : "auto",
                 "--port", "5060", "--stun", "10.9.0.1:3478",
                 "--auto-answer", "--once", "--duration", "60", "--play", directory + "/nated-plays.wav",
                 "--record", directory + "/nated-heard.wav"] + common + relay)
            guard PollingWait.until(timeout: 20, { nated.log.contains("listening on") }) else {
                throw NetworkNamespaceError("the NATed client did not register:\n\(nated.logTail())\n\(kamailio.log)")
            }
            far = try process(
                "far", in: provider,
                ["call", "alice", "--identity", "bob", "--password", "bobpass", "--listen", "10.9.0.1", "--duration", "\(callSeconds)",
                 "--verbose", "--play", directory + "/far-plays.wav", "--record", directory + "/far-heard.wav"] + common)
        } else {
            far = try process(
                "far", in: provider,
                ["listen", "--identity", "bob", "--password", "bobpass", "--listen", "10.9.0.1", "--auto-answer", "--once",
                 "--duration", "60", "--play", directory + "/far-plays.wav", "--record", directory + "/far-heard.wav"] + common)
            guard PollingWait.until(timeout: 20, { far.log.contains("listening on") }) else {
                throw NetworkNamespaceError("the far party did not register:\n\(far.logTail())\n\(kamailio.log)")
            }
            nated = try process(
                "nated", in: client,
                ["call", "bob", "--identity", "alice", "--password", "alicepass", "--listen", "10.0.0.2", "--port", "5060",
                 "--duration", "\(callSeconds)",
                 "--play", directory + "/nated-plays.wav", "--record", directory + "/nated-heard.wav"] + common + relay)
        }
        defer {
            nated.stop()
            far.stop()
        }
        if let renumberAfter {
            guard PollingWait.until(timeout: 10, every: 0.002, { nated.log.contains("call: connected") }) else {
                throw NetworkNamespaceError("the call did not connect:\n\(nated.logTail())\n\(far.logTail())")
            }
            Thread.sleep(forTimeInterval: renumberAfter)  // audio before the change: a window, not synchronisation
            // The new address is a secondary of the same subnet: promoted when the old one goes
            // (by default Linux deletes the secondaries with the primary), as a DHCP renewal does.
            try client.exec("sysctl", "-q", "-w", "net.ipv4.conf.n0.promote_secondaries=1")
            try client.batch("addr add 10.0.0.3/24 dev n0", "addr del 10.0.0.2/24 dev n0", "route replace default via 10.0.0.1 dev n0")
        }
        _ = PollingWait.until(timeout: Double(callSeconds) + 30) { !nated.isRunning && !far.isRunning }
        var heard: [String: [Int16]] = [:]
        var gaps: [String: Int] = [:]
        for side in ["nated", "far"] {
            (heard[side], gaps[side]) = NamespaceScenario.recording(side, in: directory)
        }
        return Result(
            natedLog: nated.log, farLog: far.log, kamailioLog: kamailio.log, coturnLog: coturn.log, natedExit: nated.exitStatus, farExit: far.exitStatus,
            natedCallbacks: NetworkChangeCall.callbacks(in: nated.log), gapMilliseconds: gaps, heard: heard,
            played: ["nated": farPlays, "far": natedPlays])
    }

    func process(_ name: String, in namespace: NetworkNamespace, _ arguments: [String]) throws -> SIPPeerProcess {
        try SIPPeerProcess(
            name: name, executable: "ip", arguments: ["netns", "exec", namespace.name, voicecall] + arguments,
            workingDirectory: directory, logPath: directory + "/\(name).log")
    }
}
