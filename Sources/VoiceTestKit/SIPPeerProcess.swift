#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// A real SIP peer (baresip, Kamailio) running as a child process for interop tests.
///
/// Launching starts the process with its stdout and stderr going to ``logPath``;
/// ``waitUntilReady(optionsTo:requestURI:timeout:)`` probes it with OPTIONS from a raw UDP socket
/// until it answers; ``stop(grace:)`` (also run on deinit) sends SIGTERM, then SIGKILL to the
/// process group after the grace period, and waits for the exit. Thread-safe.
package final class SIPPeerProcess: Sendable {
    /// A short name for messages (`baresip`, `kamailio`).
    package let name: String
    /// The process id.
    package let pid: Int32
    /// Where stdout and stderr go.
    package let logPath: String
    private let process: Locked<Process?>

    /// Launches `executable` with `arguments` in `workingDirectory`, logging to `logPath`.
    /// - Parameters:
    ///   - name: A short name for messages.
    ///   - executable: A path, or a bare name searched on `PATH`.
    ///   - arguments: The arguments.
    ///   - workingDirectory: The directory the process starts in.
    ///   - logPath: The file that receives stdout and stderr (created or truncated).
    ///   - input: A pipe the process reads commands from; nil: `/dev/null`.
    /// - Throws: ``SIPPeerError/Kind/notInstalled`` or ``SIPPeerError/Kind/launchFailed``.
    package init(
        name: String, executable: String, arguments: [String], workingDirectory: String,
        logPath: String, environment: [String: String] = [:], input: Pipe? = nil
    ) throws(SIPPeerError) {
        guard let path = Self.executablePath(executable) else {
            throw SIPPeerError(.notInstalled, "\(executable) not found on PATH")
        }
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
            let log = FileHandle(forWritingAtPath: logPath)
        else {
            throw SIPPeerError(.fileSystem, "cannot create log file \(logPath)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        do {
            try process.run()
        } catch {
            try? log.close()
            throw SIPPeerError(.launchFailed, "\(path) \(arguments.joined(separator: " ")): \(error)")
        }
        try? log.close()
        self.name = name
        self.pid = process.processIdentifier
        self.logPath = logPath
        self.process = Locked(process)
    }

    deinit { stop() }

    /// True until the process has exited.
    package var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// The exit status once the process has exited normally; nil while it runs or after a signal.
    package var exitStatus: Int32? {
        process.withLock { process in
            guard let process, !process.isRunning, process.terminationReason == .exit else { return nil }
            return process.terminationStatus
        }
    }

    /// Everything the process has written so far.
    package var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// The last `count` lines of the log, for failure messages.
    package func logTail(lines count: Int = 30) -> String {
        log.split(separator: "\n", omittingEmptySubsequences: false).suffix(count).joined(separator: "\n")
    }

    /// Launches a peer and waits until it answers OPTIONS at `address`; a peer that never gets
    /// ready is stopped before the error is thrown.
    package static func launchReady(
        name: String, executable: String, arguments: [String], workingDirectory: String, logPath: String,
        readyAt address: SocketAddress, requestURI: String, timeout: Duration
    ) throws(SIPPeerError) -> SIPPeerProcess {
        let process = try SIPPeerProcess(
            name: name, executable: executable, arguments: arguments,
            workingDirectory: workingDirectory, logPath: logPath)
        do {
            try process.waitUntilReady(optionsTo: address, requestURI: requestURI, timeout: timeout)
        } catch {
            process.stop()
            throw error
        }
        return process
    }

    /// Sends OPTIONS to `address` every 200 ms until any SIP response comes back.
    /// - Parameters:
    ///   - address: The peer's SIP UDP address.
    ///   - requestURI: The Request-URI and To URI (`sip:127.0.0.1:5060`, `sip:bob@127.0.0.1:5060`).
    ///   - timeout: How long to try.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``SIPPeerError/Kind/exitedEarly`` if the process dies, ``SIPPeerError/Kind/notReady``
    ///   after `timeout`, with the log's tail in the detail.
    @discardableResult
    package func waitUntilReady(
        optionsTo address: SocketAddress, requestURI: String,
        timeout: Duration = .seconds(10)
    ) throws(SIPPeerError) -> String {
        let channel = try SIPPeerUDPChannel()
        defer { channel.close() }
        let deadline = ContinuousClock.now + timeout
        var attempt = 0
        while ContinuousClock.now < deadline {
            guard isRunning else {
                throw SIPPeerError(.exitedEarly, "\(name) exited before answering OPTIONS; log:\n\(logTail())")
            }
            attempt += 1
            let branch = "z9hG4bK-sippeer-probe-\(pid)-\(attempt)"
            let request = Self.optionsRequest(requestURI: requestURI, from: channel.localAddress, branch: branch)
            try channel.send(request, to: address)
            let reply = channel.receive(timeout: .milliseconds(200)) { $0.hasPrefix("SIP/2.0 ") && $0.contains(branch) }
            if let reply { return reply }
        }
        throw SIPPeerError(.notReady, "\(name) did not answer OPTIONS at \(address) within \(timeout); log:\n\(logTail())")
    }

    /// Stops the process: SIGTERM, then SIGKILL to its process group once `grace` has passed,
    /// then waits for the exit. Idempotent.
    ///
    /// Sends SIGKILL to the process (a crash, not a shutdown) and reaps it; ``stop(grace:)`` after it does nothing.
    package func crash() {
        guard let process = process.withLock({ p -> Process? in
            defer { p = nil }; return p
        }) else { return }
        // The whole group when the process leads one: a wrapper shell's child goes with it.
        if getpgid(pid) == pid { _ = Glibc.kill(-pid, SIGKILL) } else if process.isRunning { _ = Glibc.kill(pid, SIGKILL) }
        let reapDeadline = ContinuousClock.now + .seconds(2)
        while process.isRunning && !Self.hasExited(pid) && ContinuousClock.now < reapDeadline { usleep(10_000) }
        // A zombie: Foundation reaps it within moments as a rule (the pid is then gone, which
        // callers check), but not always; give it half a second, not the whole deadline.
        let zombieDeadline = min(reapDeadline, ContinuousClock.now + .milliseconds(500))
        while process.isRunning && ContinuousClock.now < zombieDeadline { usleep(5_000) }
    }

    /// baresip with a call up does not exit on SIGTERM until its BYE transaction ends (up to 32 s),
    /// so the grace period is short.
    package func stop(grace: Duration = .seconds(2)) {
        guard
            let process = process.withLock({ p -> Process? in
                defer { p = nil }; return p
            })
        else { return }
        // Asked while the process still leads its group: a wrapper (`ip netns exec`, a shell)
        // may exit first and leave its children in the group.
        let leadsGroup = getpgid(pid) == pid
        if process.isRunning {
            if leadsGroup { kill(-pid, SIGTERM) } else { process.terminate() }
            let deadline = ContinuousClock.now + grace
            while process.isRunning && !Self.hasExited(pid) && ContinuousClock.now < deadline { usleep(10_000) }
        }
        // Kamailio forks workers into the same group; a group kill leaves none behind.
        if leadsGroup { kill(-pid, SIGKILL) } else if process.isRunning { kill(pid, SIGKILL) }
        // Bounded: Foundation has been seen to miss a peer's exit, and an unbounded
        // waitUntilExit() would hang the whole test run.
        let reapDeadline = ContinuousClock.now + .seconds(2)
        while process.isRunning && !Self.hasExited(pid) && ContinuousClock.now < reapDeadline { usleep(10_000) }
        // A zombie: Foundation reaps it within moments as a rule (the pid is then gone, which
        // callers check), but not always; give it half a second, not the whole deadline.
        let zombieDeadline = min(reapDeadline, ContinuousClock.now + .milliseconds(500))
        while process.isRunning && ContinuousClock.now < zombieDeadline { usleep(5_000) }
    }

    /// Whether `pid` has exited: gone, or a zombie its parent has not reaped yet. Foundation
    /// can keep reporting a wrapper shell running after its exit (a Kamailio stop waited out
    /// both deadlines, 4 s, for a shell that was a zombie all along).
    static func hasExited(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // `pid (comm) state …`: the state follows the last ')' (comm may hold spaces or parentheses).
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// True when `name` (a bare name searched on `PATH`, or a path) is an executable file.
    package static func isInstalled(_ name: String) -> Bool { executablePath(name) != nil }

    /// The full path of `name` on `PATH` (plus `/usr/sbin` and `/sbin`, where Kamailio lives),
    /// or `name` itself when it contains a slash and is executable; nil if not found.
    package static func executablePath(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The first port of the kernel's ephemeral range (what `bind` to port 0 and outgoing
    /// connections draw from), from `/proc/sys/net/ipv4/ip_local_port_range`; 32768 if unreadable.
    static var ephemeralPortsStart: Int {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
            let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap({ Int($0) })
        else { return 32_768 }
        return first
    }

    /// Where peers' SIP and control ports are drawn from: below the media ranges and the
    /// ephemeral range, so no socket of ours that binds to port 0 can take a port between the
    /// check and the peer's own bind.
    static let listeningPorts = 10_000..<20_000

    /// Where peers' media port ranges are drawn from: above ``listeningPorts``, below the
    /// ephemeral range.
    static var mediaPorts: Range<Int> { 20_000..<max(20_100, ephemeralPortsStart) }

    /// Whether something has bound UDP `port` on `host` (a peer started in-process or as a
    /// process is listening): a bind there fails with EADDRINUSE.
    package static func isUDPPortTaken(_ port: Int, host: String = "127.0.0.1") -> Bool {
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard udp >= 0 else { return false }
        defer { close(udp) }
        return bind(udp, host: host, port: port) == nil && errno == EADDRINUSE
    }

    /// A port on `host` that is free for both UDP and TCP right now (SIP peers listen on both),
    /// drawn from ``listeningPorts``, outside the kernel's ephemeral range.
    package static func freePort(host: String = "127.0.0.1") throws(SIPPeerError) -> Int {
        for _ in 0..<200 {
            let candidate = Int.random(in: listeningPorts)
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard tcp >= 0 else { throw SIPPeerError(.socket, "socket: errno \(errno)") }
            defer { close(tcp) }
            guard let port = bind(tcp, host: host, port: candidate) else { continue }
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard udp >= 0 else { throw SIPPeerError(.socket, "socket: errno \(errno)") }
            defer { close(udp) }
            if bind(udp, host: host, port: port) != nil { return port }
        }
        throw SIPPeerError(.socket, "no port free for both UDP and TCP on \(host)")
    }

    /// `count` consecutive ports free for UDP now (a media port range), starting at an even
    /// port, drawn from ``mediaPorts``, outside the kernel's ephemeral range.
    package static func freeUDPPortRange(count: Int, host: String = "127.0.0.1") throws(SIPPeerError) -> ClosedRange<Int> {
        let ports = mediaPorts
        guard ports.count > count else { throw SIPPeerError(.socket, "no room for \(count) media ports in \(ports)") }
        for _ in 0..<200 {
            let first = Int.random(in: ports.lowerBound...(ports.upperBound - count)) & ~1
            var sockets: [Int32] = []
            defer { sockets.forEach { close($0) } }
            var free = true
            for port in first..<(first + count) {
                let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                guard udp >= 0 else { throw SIPPeerError(.socket, "socket: errno \(errno)") }
                sockets.append(udp)
                if bind(udp, host: host, port: port) == nil { free = false; break }
            }
            if free { return first...(first + count - 1) }
        }
        throw SIPPeerError(.socket, "no \(count) consecutive free UDP ports on \(host)")
    }

    /// Binds `fd` to `host:port` (IPv4); returns the bound port or nil.
    private static func bind(_ fd: Int32, host: String, port: Int) -> Int? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard rc == 0 else { return nil }
        var bound = sockaddr_in()
        var boundLength = length
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &boundLength) }
        }
        return Int(UInt16(bigEndian: bound.sin_port))
    }

    /// A minimal OPTIONS request over UDP from `local` (CRLF line ends, no body).
    package static func optionsRequest(requestURI: String, from local: SocketAddress, branch: String) -> String {
        [
            "OPTIONS \(requestURI) SIP/2.0",
            "Via: SIP/2.0/UDP \(local);branch=\(branch);rport",
            "Max-Forwards: 70",
            "From: <sip:probe@\(local)>;tag=\(branch.suffix(8))",
            "To: <\(requestURI)>",
            "Call-ID: \(branch)@\(local.host)",
            "CSeq: 1 OPTIONS",
            "Accept: application/sdp",
            "Content-Length: 0",
            "", "",
        ].joined(separator: "\r\n")
    }
}
