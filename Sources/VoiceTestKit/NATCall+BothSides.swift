import VoiceEmbedded
import Foundation
import VoiceSupport

extension NATCall {
    /// Both parties behind NATs of their own: our client (10.0.0.2) behind one router
    /// (masquerading to 10.5.0.1), the far party (10.1.0.2) behind another (to 10.6.0.1), the
    /// provider (Kamailio and coturn on 10.9.0.1) between them. Each router lets only SIP
    /// (5060) and TURN (3478) out over UDP, and drops what nobody inside asked for, so no
    /// direct or server-reflexive pair can work: only a relayed one. The far party registers
    /// with the NAT's address (STUN) and is called by name; with `turn` both use coturn as
    /// their TURN server (the default policy: every candidate offered).
    package func runWithBothBehindNATs(turn: Bool) throws -> Result {
        let client = try NetworkNamespace(prefix: "nc")
        let router = try NetworkNamespace(prefix: "nr")
        let farClient = try NetworkNamespace(prefix: "nf")
        let farRouter = try NetworkNamespace(prefix: "ns")
        let provider = try NetworkNamespace(prefix: "np")
        defer {
            for namespace in [client, router, farClient, farRouter, provider] { namespace.delete() }
        }
        for (inside, nat, subnet, outside, interfaces) in [
            (client, router, "10.0.0", "10.5.0", ("n0", "r0", "r1", "p0")), (farClient, farRouter, "10.1.0", "10.6.0", ("f0", "s0", "s1", "p1")),
        ] {
            try Self.link(inside, behind: nat, to: provider, subnet: subnet, outside: outside, interfaces: interfaces)
            // Nothing in that nobody inside asked for; only SIP and TURN out.
            try nat.exec("nft", "add table ip filter")
            try nat.exec("nft", "add chain ip filter forward { type filter hook forward priority 0 ; policy drop ; }")
            try nat.exec("nft", "add rule ip filter forward ct state established,related accept")
            try nat.exec("nft", "add rule ip filter forward iifname \(interfaces.1) udp dport { 3478, 5060 } accept")
            try nat.exec("nft", "add rule ip filter forward iifname \(interfaces.1) tcp dport { 3478, 5060 } accept")
        }
        // A default route to nowhere: coturn's sends to the parties' private addresses (their
        // host candidates) vanish as they would on the internet, instead of failing with
        // ENETUNREACH, on which coturn drops the whole allocation.
        try provider.batch(
            "addr add 10.9.0.1/32 dev lo", "link add void0 type veth peer name void1", "link set void0 up", "link set void1 up",
            "addr add 10.99.0.1/24 dev void0", "route add default via 10.99.0.2 dev void0")

        let kamailio = try NamespaceScenario.kamailio(in: provider)
        defer { kamailio.stop() }
        let coturn = try SIPPeerProcess(
            name: "coturn", executable: NetworkNamespace.ipPath,
            arguments: [
                "netns", "exec", provider.name, "turnserver", "-n", "-v", "--listening-ip=10.9.0.1", "--listening-port=3478",
                "--relay-ip=10.9.0.1", "--min-port=49152", "--max-port=49300", "--lt-cred-mech", "--user=alice:secret",
                "--realm=example.org", "--no-tls", "--no-dtls", "--no-cli", "--log-file=stdout", "--simple-log",
                "--pidfile=\(directory)/turnserver.pid",
            ],
            workingDirectory: directory, logPath: directory + "/coturn.log")
        defer { coturn.stop() }
        guard PollingWait.until(timeout: 10, { coturn.log.contains("Total General servers") }) else {
            throw NetworkNamespaceError("coturn did not start:\n\(coturn.logTail())")
        }
        let (natedPlays, farPlays) = try NamespaceScenario.writeTones(to: directory, names: ("nated", "far"))
        let common = ["--domain", kamailio.configuration.realm, "--proxy", "sip:10.9.0.1:5060", "--allow-clear-text-keys"]
        let relay = turn ? ["--turn", "turn:10.9.0.1:3478", "--turn-username", "alice", "--turn-password", "secret"] : []
        let far = try process(
            "far", in: farClient,
            ["listen", "--identity", "bob", "--password", "bobpass", "--listen", "10.1.0.2", "--port", "5060", "--stun", "10.9.0.1:3478",
             "--auto-answer", "--once", "--duration", "60", "--play", directory + "/far-plays.wav", "--record", directory + "/far-heard.wav"]
                + common + relay)
        defer { far.stop() }
        guard PollingWait.until(timeout: 20, { far.log.contains("listening on") }) else {
            throw NetworkNamespaceError("the far party did not register:\n\(far.logTail())\n\(kamailio.log)")
        }
        let nated = try process(
            "nated", in: client,
            ["call", "bob", "--identity", "alice", "--password", "alicepass", "--listen", "10.0.0.2", "--port", "5060",
             "--duration", "\(callSeconds)", "--play", directory + "/nated-plays.wav", "--record", directory + "/nated-heard.wav"]
                + common + relay)
        defer { nated.stop() }
        _ = PollingWait.until(timeout: Double(callSeconds) + 40) { !nated.isRunning && !far.isRunning }
        var heard: [String: [Int16]] = [:]
        var gaps: [String: Int] = [:]
        for side in ["nated", "far"] {
            (heard[side], gaps[side]) = NamespaceScenario.recording(side, in: directory)
        }
        return Result(
            natedLog: nated.log, farLog: far.log, kamailioLog: kamailio.log, coturnLog: coturn.log, natedExit: nated.exitStatus,
            farExit: far.exitStatus, natedCallbacks: NetworkChangeCall.callbacks(in: nated.log), gapMilliseconds: gaps, heard: heard,
            played: ["nated": farPlays, "far": natedPlays])
    }
}
