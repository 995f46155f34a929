import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceRTP
import VoiceSupport

/// A call across a network change, for real: the "mover" (`voicecall … --listen auto`, our
/// client whose network changes; it places the call unless the change says otherwise) runs in
/// a network namespace with two veth links to a "provider" namespace where the far party
/// (`voicecall`) is on 10.9.0.1; after `changeAfter` seconds of audio the scenario changes the
/// mover's network with `ip`, so the kernel sends the rtnetlink events a laptop would see.
/// Both sides play a tone and record what they hear. Needs root and iproute2
/// (``NetworkNamespace/requirement(environment:)``).
///
/// Topology: caller namespace C with c0 (10.1.0.2/24, default route metric 100) and c1
/// (10.2.0.2/24, metric 200); provider namespace P with p0 (10.1.0.1, 10.3.0.1), p1 (10.2.0.1)
/// and 10.9.0.1 on its loopback, reachable over either link.
package struct NetworkChangeCall {
    /// What happens to the mover's network.
    package enum Change: String, CaseIterable, Sendable {
        /// DHCP renumbering on c0 onto 10.3.0.0/24: the new address, then the old one goes,
        /// and the default route moves.
        case renumber
        /// c0 is the only link (c1 stays down); it goes down for 3 s and comes back (its
        /// default route put back, as a DHCP client or NetworkManager does).
        case linkFlap
        /// The call starts on c1, classed as a VPN (`--interface-type c1=vpn`), with c0 down;
        /// c0 (Ethernet-class) comes up: the call moves to it; 3 s later c0 goes down again:
        /// the call moves back to c1.
        case preferredAppears
        /// The mover is called instead, rings for 3 s and renumbers (as ``renumber``) meanwhile,
        /// then answers from the new address. (A caller cannot stay in a call it places when its
        /// address goes away before the answer: RFC 3261 §18.2.2 sends the final response to the
        /// INVITE's Via, the old address.)
        case renumberWhileRinging
        /// c0 is the only link; it goes down for good: the call ends at the reconnection
        /// timeout (the scenario gives both sides 5 s) on both sides.
        case linkLost
        /// The mover calls from c1 (VPN-class, c0 down); the far party answers after 3 s. While
        /// it rings, c0 (Ethernet-class) comes up: the mover sends an UPDATE in the early dialog
        /// with its new Contact, and once answered re-INVITEs to move the media.
        case preferredAppearsWhileRinging
        /// The call runs on c0 (Ethernet-class); c1, a less preferred link the call does not use,
        /// goes down and comes back, and a second address is added to it: nothing the call uses
        /// changed, so nothing happens to it.
        case unrelatedChange
        /// The far party has IPv6 only (fd00:9::1); the mover, dual-stack on c0 (c1 down), calls
        /// it over IPv6. Then the mover's network becomes IPv6-only and renumbers: its IPv4
        /// goes, its IPv6 moves onto fd00:3::/64 with the default route: the call moves over IPv6.
        case moveToIPv6Only

        /// Commands run in the caller's namespace before the call.
        var setup: [String] {
            switch self {
            case .renumber, .renumberWhileRinging, .unrelatedChange: []
            case .linkFlap, .linkLost: ["link set c1 down"]
            case .moveToIPv6Only: ["link set c1 down", "addr add fd00:1::2/64 dev c0 nodad", "route add ::/0 via fd00:1::1 dev c0 metric 100"]
            case .preferredAppears, .preferredAppearsWhileRinging: ["link set c0 down"]
            }
        }

        var callerArguments: [String] {
            switch self {
            case .preferredAppears, .preferredAppearsWhileRinging: ["--interface-type", "c1=vpn"]
            case .linkLost: ["--reconnect-timeout", "5"]
            default: []
            }
        }

        /// What is done to the caller's network, each after a pause in seconds.
        var steps: [(pause: Double, commands: [String])] {
            switch self {
            case .renumber, .renumberWhileRinging:
                [(0, ["addr add 10.3.0.2/24 dev c0", "addr del 10.1.0.2/24 dev c0", "route replace default via 10.3.0.1 dev c0 metric 100"])]
            case .linkFlap:
                [(0, ["link set c0 down"]), (3, ["link set c0 up", "route replace default via 10.1.0.1 dev c0 metric 100"])]
            case .preferredAppears:
                [(0, ["link set c0 up", "route replace default via 10.1.0.1 dev c0 metric 100"]), (3, ["link set c0 down"])]
            case .linkLost:
                [(0, ["link set c0 down"])]
            case .preferredAppearsWhileRinging:
                [(0, ["link set c0 up", "route replace default via 10.1.0.1 dev c0 metric 100"])]
            case .unrelatedChange:
                [(0, ["link set c1 down"]), (1, ["link set c1 up", "addr add 10.2.0.3/24 dev c1"])]
            case .moveToIPv6Only:
                [(0, ["addr add fd00:3::2/64 dev c0 nodad", "addr del fd00:1::2/64 dev c0", "addr del 10.1.0.2/24 dev c0",
                      "route replace ::/0 via fd00:3::1 dev c0 metric 100"])]
            }
        }

        /// Commands run in the provider's namespace before the call.
        var providerSetup: [String] {
            self == .moveToIPv6Only ? ["addr add fd00:1::1/64 dev p0 nodad", "addr add fd00:3::1/64 dev p0 nodad", "addr add fd00:9::1/128 dev lo"] : []
        }

        /// Where the far party listens, and its host as a URI writes it.
        var farHost: (address: String, uri: String) { self == .moveToIPv6Only ? ("fd00:9::1", "[fd00:9::1]") : ("10.9.0.1", "10.9.0.1") }
    }

    package struct Result {
        /// The mover's callbacks (our client whose network changes) in order: `connected`,
        /// `reconnecting: 53001`, `reconnected`…
        package var moverCallbacks: [String]
        package var moverLog: String
        package var farLog: String
        package var moverExit: Int32?
        package var farExit: Int32?
        /// From the (first) change to the caller's first `reconnected`, ms (±10 ms: read from
        /// its printed times).
        package var reconnectMilliseconds: Int?
        /// The longest gap in what each side heard ("mover", "far"), ms.
        package var gapMilliseconds: [String: Int]
        /// What each side heard, and what the other played.
        package var heard: [String: [Int16]]
        package var played: [String: [Int16]]
        /// With ``spoofsFarMedia``: forged packets sent at the far party's media ports, and how
        /// many its last stats line says it refused (failed SRTP authentication or replay).
        package var spoofedPackets = 0
        package var farRefused = 0
    }

    package let voicecall: String
    package let directory: String
    package var changeAfter: Double = 3
    package var callSeconds = 12
    /// The signaling transport both sides use: `udp`, `tcp` or `tls` (with ``tls``).
    package var transport = "udp"
    /// For TLS: a certificate both sides present (its IP SANs name every address they use),
    /// its key, and the CA that signed it, which both trust.
    package var tls: (certificate: String, key: String, ca: String)?
    /// `voicecall --media-security` for both sides: nil for the default (`automatic`: ICE and
    /// DTLS-SRTP, so a move is an ICE restart), `sdes` for keys in the SDP (the peer follows
    /// our packets).
    package var mediaSecurity: String?

    /// The options that pick the transport (and, for TLS, the certificates).
    private var transportArguments: [String] {
        var arguments = ["--transport", transport]
        if transport == "tls", let tls {
            arguments += ["--tls-certificate", tls.certificate, "--tls-key", tls.key, "--tls-ca", tls.ca]
        } else {
            arguments.append("--allow-clear-text-keys")
        }
        if let mediaSecurity { arguments += ["--media-security", mediaSecurity] }
        return arguments
    }
    /// `--verbose` for both sides (SIP messages, ICE and Insights events in their logs).
    package var verbose = false
    /// After the change, an attacker at 10.9.0.66 (in the provider's namespace) sends forged
    /// SRTP at the far party's media ports for 3 s (case 6: it must not capture the stream).
    package var spoofsFarMedia = false

    package init(voicecall: String, directory: String) {
        self.voicecall = voicecall
        self.directory = directory
    }

    /// The two namespaces, linked and addressed (see the type's documentation); the provider
    /// also answers on 10.4.0.1 on c0's link, for a second renumbering.
    func makeTopology() throws -> (caller: NetworkNamespace, provider: NetworkNamespace) {
        let caller = try NetworkNamespace(prefix: "vc")
        let provider = try NetworkNamespace(prefix: "vp")
        for (c, p) in [("c0", "p0"), ("c1", "p1")] {
            try NetworkNamespace.run(["link", "add", c, "netns", caller.name, "type", "veth", "peer", "name", p, "netns", provider.name])
        }
        try provider.batch(
            "link set p0 up", "link set p1 up", "addr add 10.1.0.1/24 dev p0", "addr add 10.3.0.1/24 dev p0",
            "addr add 10.4.0.1/24 dev p0", "addr add 10.2.0.1/24 dev p1", "addr add 10.9.0.1/32 dev lo")
        try caller.batch(
            "link set c0 up", "link set c1 up", "addr add 10.1.0.2/24 dev c0", "addr add 10.2.0.2/24 dev c1",
            "route add default via 10.1.0.1 dev c0 metric 100", "route add default via 10.2.0.1 dev c1 metric 200")
        return (caller, provider)
    }

    package func run(_ change: Change) throws -> Result {
        let (caller, provider) = try makeTopology()
        defer {
            caller.delete()
            provider.delete()
        }
        for command in change.setup { try caller.batch(command) }
        if !change.providerSetup.isEmpty { try provider.batch(change.providerSetup) }

        let (callerPlays, calleePlays) = try NamespaceScenario.writeTones(to: directory, names: ("mover", "far"))
        // Plain UDP/TCP signaling between namespaces on this host.
        let keys = transportArguments
        let timeout = change == .linkLost ? ["--reconnect-timeout", "5"] : []
        let mover: SIPPeerProcess
        let far: SIPPeerProcess
        if change == .renumberWhileRinging {
            // The mover is called: it rings for 3 s and renumbers meanwhile, then answers.
            mover = try process(
                "mover", in: caller,
                ["listen", "--identity", "alice", "--domain", "10.9.0.1", "--listen", "auto", "--port", "5060", "--no-register",
                 "--auto-answer", "--answer-after", "3", "--once", "--duration", "60",
                 "--play", directory + "/mover-plays.wav", "--record", directory + "/mover-heard.wav"] + keys)
            guard PollingWait.until(timeout: 20, { mover.log.contains("listening on") }) else {
                mover.stop()
                throw NetworkNamespaceError("the mover did not start:\n\(mover.logTail())")
            }
            far = try process(
                "far", in: provider,
                ["call", "sip:alice@10.1.0.2:5060", "--identity", "bob", "--domain", "10.9.0.1", "--listen", "10.9.0.1",
                 "--duration", "\(callSeconds)", "--play", directory + "/far-plays.wav", "--record", directory + "/far-heard.wav"] + keys)
        } else {
            far = try process(
                "far", in: provider,
                ["listen", "--identity", "bob", "--domain", change.farHost.uri, "--listen", change.farHost.address,
                 "--port", transport == "tls" ? "5061" : "5060",
                 "--no-register",
                 "--auto-answer", "--once", "--duration", "60", "--play", directory + "/far-plays.wav",
                 "--record", directory + "/far-heard.wav"] + keys + timeout
                    + (change == .preferredAppearsWhileRinging ? ["--answer-after", "3", "--verbose"] : []))
            guard PollingWait.until(timeout: 20, { far.log.contains("listening on") }) else {
                far.stop()
                throw NetworkNamespaceError("the far party did not start:\n\(far.logTail())")
            }
            mover = try process(
                "mover", in: caller,
                ["call", "bob", "--identity", "alice", "--domain", change.farHost.uri, "--listen", "auto", "--duration", "\(callSeconds)",
                 "--play", directory + "/mover-plays.wav", "--record", directory + "/mover-heard.wav"] + keys
                    + change.callerArguments + timeout)
        }
        defer {
            mover.stop()
            far.stop()
        }
        let ringing = change == .renumberWhileRinging || change == .preferredAppearsWhileRinging
        let first = change == .renumberWhileRinging ? "incoming call" : ringing ? "call: ringing" : "call: connected"
        guard PollingWait.until(timeout: 20, every: 0.002, { mover.log.contains(first) }) else {
            throw NetworkNamespaceError("the call did not \(ringing ? "ring" : "connect"):\n\(mover.logTail())\n\(far.logTail())")
        }
        let connectedSeen = Date()
        if !ringing { Thread.sleep(forTimeInterval: changeAfter) }  // audio before the change: a window, not synchronisation
        let changedAt = Date()
        for (pause, commands) in change.steps {
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
            try caller.batch(commands)
        }
        var spoofed = 0
        if spoofsFarMedia {
            Thread.sleep(forTimeInterval: 1)  // the far party has followed the move
            try provider.batch("addr add 10.9.0.66/32 dev lo")
            let attacker = ForgedMediaSender(namespace: provider, host: "10.9.0.66")
            let targets = try attacker.mediaPorts(of: "voicecall").compactMap {
                try? SocketAddress(host: $0.host == "0.0.0.0" ? "10.9.0.1" : $0.host, port: $0.port)
            }
            guard !targets.isEmpty else { throw NetworkNamespaceError("no media port of the far party found") }
            spoofed = try attacker.send(to: targets, count: 300, interval: 0.01)
        }
        _ = PollingWait.until(timeout: Double(callSeconds) + 20) { !mover.isRunning && !far.isRunning }

        let log = mover.log
        let callbacks = Self.callbacks(in: log)
        // The caller prints seconds since it started; place the change on that clock by its
        // "connected" line, seen (within 2 ms) at `connectedSeen`.
        var reconnect: Int?
        if let connected = Self.time(of: first, in: log), let back = Self.time(of: "call: reconnected", in: log) {
            let change = connected + changedAt.timeIntervalSince(connectedSeen)
            reconnect = Int(((back - change) * 1000).rounded())
        }
        let (heard, gaps) = recordings()
        return Result(
            moverCallbacks: callbacks, moverLog: log, farLog: far.log, moverExit: mover.exitStatus,
            farExit: far.exitStatus, reconnectMilliseconds: reconnect, gapMilliseconds: gaps, heard: heard,
            played: ["mover": calleePlays, "far": callerPlays], spoofedPackets: spoofed, farRefused: Self.refused(in: far.log))
    }

    /// What ``runThroughProxy()`` saw.
    package struct ProxyResult {
        /// The mover's callbacks, as in ``Result``.
        package var moverCallbacks: [String]
        package var moverLog: String
        package var farLog: String
        package var kamailioLog: String
        package var moverExit: Int32?
        package var farExit: Int32?
        /// Whether the far party's call through the proxy reached the mover after the first renumbering.
        package var reachedAfterRenumbering: Bool
        package var gapMilliseconds: [String: Int]
        package var heard: [String: [Int16]]
        package var played: [String: [Int16]]
    }

    /// Cases 7 and 8: the mover registers with Kamailio (registrar and record-routing proxy, in
    /// the provider namespace on 10.9.0.1) and waits for calls. Its link is renumbered (10.1.0.2
    /// to 10.3.0.2); 2 s later the far party calls it by name through the proxy, which must
    /// find the new binding. 3 s into that call the link is renumbered again (to 10.4.0.2): the
    /// call moves with a re-INVITE through the proxy, and the far party's BYE at the end must
    /// reach the mover's new address along the dialog's route.
    package func runThroughProxy() throws -> ProxyResult {
        let (caller, provider) = try makeTopology()
        defer {
            caller.delete()
            provider.delete()
        }
        let kamailio = try NamespaceScenario.kamailio(in: provider, tls: transport == "tls" ? tls.map { ($0.certificate, $0.key) } : nil)
        defer { kamailio.stop() }
        let configuration = kamailio.configuration
        let (moverPlays, farPlays) = try NamespaceScenario.writeTones(to: directory, names: ("mover", "far"))
        let common = ["--domain", configuration.realm, "--proxy", NamespaceScenario.proxy(transport)] + transportArguments
        let mover = try process(
            "mover", in: caller,
            ["listen", "--identity", "alice", "--password", "alicepass", "--listen", "auto", "--auto-answer", "--once",
             "--duration", "60", "--play", directory + "/mover-plays.wav", "--record", directory + "/mover-heard.wav"] + common)
        defer { mover.stop() }
        guard PollingWait.until(timeout: 20, { mover.log.contains("listening on") }) else {
            throw NetworkNamespaceError("the mover did not register:\n\(mover.logTail())\n\(kamailio.log)")
        }
        try caller.batch("addr add 10.3.0.2/24 dev c0", "addr del 10.1.0.2/24 dev c0", "route replace default via 10.3.0.1 dev c0 metric 100")
        Thread.sleep(forTimeInterval: 2)  // the issue's bound: re-registered within 2 s of the change
        let far = try process(
            "far", in: provider,
            ["call", "alice", "--identity", "bob", "--password", "bobpass", "--listen", "10.9.0.1", "--duration", "\(callSeconds)",
             "--play", directory + "/far-plays.wav", "--record", directory + "/far-heard.wav"] + common)
        defer { far.stop() }
        let reached = PollingWait.until(timeout: 10) { mover.log.contains("call: connected") }
        if reached {
            Thread.sleep(forTimeInterval: changeAfter)  // audio before the second change: a window
            try caller.batch(
                "addr add 10.4.0.2/24 dev c0", "addr del 10.3.0.2/24 dev c0", "route replace default via 10.4.0.1 dev c0 metric 100")
        }
        _ = PollingWait.until(timeout: Double(callSeconds) + 20) { !mover.isRunning && !far.isRunning }
        let log = mover.log
        let callbacks = Self.callbacks(in: log)
        let (heard, gaps) = recordings()
        return ProxyResult(
            moverCallbacks: callbacks, moverLog: log, farLog: far.log, kamailioLog: kamailio.log, moverExit: mover.exitStatus,
            farExit: far.exitStatus, reachedAfterRenumbering: reached, gapMilliseconds: gaps, heard: heard,
            played: ["mover": farPlays, "far": moverPlays])
    }

    /// The SRTP refusals (authentication and replay) in the last stats line of `log` that has any.
    static func refused(in log: String) -> Int {
        for line in log.split(separator: "\n").reversed() {
            guard let range = line.range(of: "refused: auth ") else { continue }
            let words = line[range.upperBound...].split(separator: " ")
            let auth = words.first.flatMap { Int($0) } ?? 0
            let replay = words.count > 2 && words[1] == "replay" ? Int(words[2]) ?? 0 : 0
            return auth + replay
        }
        return 0
    }

    /// What ``runSignalingOutage()`` saw: both sides' logs, callbacks and audio.
    package struct OutageResult {
        package var moverCallbacks: [String]
        package var farCallbacks: [String]
        package var moverLog: String
        package var farLog: String
        package var kamailioLog: String
        package var moverExit: Int32?
        package var farExit: Int32?
        /// From the outage's start to each side's `reconnecting`, and from its end to each
        /// side's `reconnected`, ms (±10 ms).
        package var noticedMilliseconds: [String: Int]
        package var recoveredMilliseconds: [String: Int]
        package var gapMilliseconds: [String: Int]
        package var heard: [String: [Int16]]
        package var played: [String: [Int16]]
    }

    /// A signaling path that dies silently (over UDP, or a TCP connection whose packets stop):
    /// both parties register with Kamailio (in the
    /// provider's namespace) and the far party calls the mover through it. After
    /// ``changeAfter`` seconds an nftables rule in the provider's namespace drops every packet
    /// to the proxy's SIP port, for `outage` seconds: nothing closes, nothing is refused, the
    /// media (which does not go through the proxy) goes on. Both sides send keep-alives every 2 s
    /// that must be answered within 2 s.
    package func runSignalingOutage(outage: Double = 8) throws -> OutageResult {
        let (caller, provider) = try makeTopology()
        defer {
            caller.delete()
            provider.delete()
        }
        let kamailio = try NamespaceScenario.kamailio(in: provider, tls: transport == "tls" ? tls.map { ($0.certificate, $0.key) } : nil)
        defer { kamailio.stop() }
        let configuration = kamailio.configuration
        let (moverPlays, farPlays) = try NamespaceScenario.writeTones(to: directory, names: ("mover", "far"))
        let common =
            ["--domain", configuration.realm, "--proxy", NamespaceScenario.proxy(transport), "--keepalive-interval", "2",
             "--keepalive-timeout", "2"] + transportArguments
        let mover = try process(
            "mover", in: caller,
            ["listen", "--identity", "alice", "--password", "alicepass", "--listen", "10.1.0.2", "--auto-answer", "--once",
             "--duration", "60", "--play", directory + "/mover-plays.wav", "--record", directory + "/mover-heard.wav"] + common)
        defer { mover.stop() }
        guard PollingWait.until(timeout: 20, { mover.log.contains("listening on") }) else {
            throw NetworkNamespaceError("the mover did not register:\n\(mover.logTail())\n\(kamailio.log)")
        }
        let far = try process(
            "far", in: provider,
            ["call", "alice", "--identity", "bob", "--password", "bobpass", "--listen", "10.9.0.1", "--duration", "\(callSeconds)",
             "--play", directory + "/far-plays.wav", "--record", directory + "/far-heard.wav"] + common)
        defer { far.stop() }
        guard PollingWait.until(timeout: 10, every: 0.002, { mover.log.contains("call: connected") }) else {
            throw NetworkNamespaceError("the call did not connect:\n\(mover.logTail())\n\(far.logTail())")
        }
        let connectedSeen = Date()
        Thread.sleep(forTimeInterval: changeAfter)  // audio before the outage: a window, not synchronisation
        let began = Date()
        try provider.exec("nft", "add table inet outage")
        try provider.exec("nft", "add chain inet outage input { type filter hook input priority 0 ; }")
        try provider.exec("nft", "add rule inet outage input \(transport == "udp" ? "udp" : "tcp") dport \(transport == "tls" ? 5061 : 5060) drop")
        Thread.sleep(forTimeInterval: outage)  // the outage itself
        let ended = Date()
        try provider.exec("nft", "delete table inet outage")
        _ = PollingWait.until(timeout: Double(callSeconds) + 30) { !mover.isRunning && !far.isRunning }
        var noticed: [String: Int] = [:]
        var recovered: [String: Int] = [:]
        for (side, log) in [("mover", mover.log), ("far", far.log)] {
            // Each side's clock is placed by its "connected" line, seen (within a few ms) at
            // `connectedSeen`: the mover's when it answered, the far party's at the 200.
            guard let connected = Self.time(of: "call: connected", in: log) else { continue }
            let beganThere = connected + began.timeIntervalSince(connectedSeen)
            let endedThere = connected + ended.timeIntervalSince(connectedSeen)
            if let lost = Self.time(of: "call: reconnecting: 53001", in: log) {
                noticed[side] = Int(((lost - beganThere) * 1000).rounded())
            }
            if let back = Self.time(of: "call: reconnected", in: log) {
                recovered[side] = Int(((back - endedThere) * 1000).rounded())
            }
        }
        let (heard, gaps) = recordings()
        return OutageResult(
            moverCallbacks: Self.callbacks(in: mover.log), farCallbacks: Self.callbacks(in: far.log), moverLog: mover.log,
            farLog: far.log, kamailioLog: kamailio.log, moverExit: mover.exitStatus, farExit: far.exitStatus,
            noticedMilliseconds: noticed, recoveredMilliseconds: recovered, gapMilliseconds: gaps, heard: heard,
            played: ["mover": farPlays, "far": moverPlays])
    }

    /// The callbacks a `voicecall` log shows, in order.
    package static func callbacks(in log: String) -> [String] {
        log.split(separator: "\n").compactMap { line -> String? in
            ["connected", "reconnecting: 53001", "reconnecting: 53405", "reconnected", "disconnected"]
                .first { line.contains("call: \($0)") }
        }
    }

    /// What each side recorded, and the longest gap in it after the first second.
    private func recordings() -> (heard: [String: [Int16]], gaps: [String: Int]) {
        var heard: [String: [Int16]] = [:]
        var gaps: [String: Int] = [:]
        for side in ["mover", "far"] {
            (heard[side], gaps[side]) = NamespaceScenario.recording(side, in: directory)
        }
        return (heard, gaps)
    }

    private func process(_ name: String, in namespace: NetworkNamespace, _ arguments: [String]) throws -> SIPPeerProcess {
        let arguments = verbose && !arguments.contains("--verbose") ? arguments + ["--verbose"] : arguments
        return try SIPPeerProcess(
            name: name, executable: "ip", arguments: ["netns", "exec", namespace.name, voicecall] + arguments,
            workingDirectory: directory, logPath: directory + "/\(name).log")
    }

    /// The seconds printed at the start of the first line holding `marker` (`  3.52s call: reconnected`).
    package static func time(of marker: String, in log: String) -> Double? {
        for line in log.split(separator: "\n") where line.contains(marker) {
            let number = line.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber || $0 == "." }
            if let seconds = Double(number) { return seconds }
        }
        return nil
    }
}
