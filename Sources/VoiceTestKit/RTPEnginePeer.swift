import Foundation

/// Debian's rtpengine (`rtpengine-daemon`), the media relay Kamailio WebRTC gateways run, on
/// loopback in user space (no kernel forwarding), controlled over its ng protocol from Kamailio's
/// `rtpengine` module (``KamailioConfiguration/rtpengineControl``). Start it before Kamailio:
/// Kamailio pings it at start and sets an absent one aside.
public final class RTPEnginePeer: Sendable {
    /// The ng control address, `127.0.0.1:port`, for ``KamailioConfiguration/rtpengineControl``.
    public let control: String
    /// The directory holding its log.
    public let directory: String
    package let process: SIPPeerProcess

    /// Whether `rtpengine` is installed.
    public static var isInstalled: Bool { SIPPeerProcess.isInstalled("rtpengine") }

    /// Starts rtpengine on 127.0.0.1 with media ports from a free range, and waits until its
    /// control socket is up.
    public init(readyTimeout: Duration = .seconds(10)) throws(SIPPeerError) {
        let port = try SIPPeerProcess.freePort()
        control = "127.0.0.1:\(port)"
        directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "rtpengine")
        // A media port range of its own, away from the ephemeral ports tests bind.
        let base = 30_000 + Int.random(in: 0..<50) * 200
        guard let path = SIPPeerProcess.executablePath("rtpengine") else { throw SIPPeerError(.notInstalled, "rtpengine not found on PATH") }
        // Through a shell, as Kamailio: a daemon that closes the descriptors it inherits stalls
        // Foundation's reaping of other processes.
        process = try SIPPeerProcess(
            name: "rtpengine", executable: "sh",
            arguments: ["-c", "\"$0\" \"$@\"; exit $?", path,
                "--interface=127.0.0.1", "--listen-ng=\(control)", "--foreground", "--log-stderr", "--table=-1",
                "--port-min=\(base)", "--port-max=\(base + 199)", "--pidfile=\(directory)/rtpengine.pid", "--log-level=6",
                "--delete-delay=0",
            ],
            workingDirectory: directory, logPath: directory + "/rtpengine.log")
        let deadline = ContinuousClock.now + readyTimeout
        while !process.log.contains("Startup complete") {
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.stop()
                throw SIPPeerError(.notReady, "rtpengine did not start; log:\n\(process.logTail())")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The log so far.
    public var log: String { process.log }

    /// Stops rtpengine and removes its directory.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
