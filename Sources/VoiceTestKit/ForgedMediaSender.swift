#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceRTP
import VoiceSupport

/// An off-path attacker inside a test's network namespace: sends forged SRTP (well-formed RTP
/// headers, random payload and a made-up authentication tag) to the media ports of a call, from
/// an address of its own. It knows the ports (from the SDP, say) but not the keys.
package struct ForgedMediaSender {
    package let namespace: NetworkNamespace
    /// The address it sends from (it must exist in the namespace).
    package let host: String

    package init(namespace: NetworkNamespace, host: String) {
        self.namespace = namespace
        self.host = host
    }

    /// The UDP ports `process` (a command name, as `ss` shows it) has open in the namespace,
    /// other than `excluding` (its SIP port), with the address each is bound to.
    package func mediaPorts(of process: String, excluding: Set<Int> = [5060]) throws -> [(host: String, port: Int)] {
        let ss = Process()
        ss.executableURL = URL(fileURLWithPath: NetworkNamespace.ipPath)
        ss.arguments = ["netns", "exec", namespace.name, "ss", "-Hunap"]
        let output = Pipe()
        ss.standardOutput = output
        ss.standardError = FileHandle.nullDevice
        do { try ss.run() } catch { throw NetworkNamespaceError("cannot run ss: \(error)") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ss.waitUntilExit()
        return text.split(separator: "\n").compactMap { line -> (String, Int)? in
            guard line.contains("\"\(process)\"") else { return nil }
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 4, let colon = columns[3].lastIndex(of: ":"),
                let port = Int(columns[3][columns[3].index(after: colon)...]), !excluding.contains(port)
            else { return nil }
            return (String(columns[3][..<colon]), port)
        }
    }

    /// Sends `count` forged packets to each target, `interval` seconds apart, with a seeded
    /// generator (the same bytes on every run). Returns how many went out.
    @discardableResult
    package func send(to targets: [SocketAddress], count: Int, interval: TimeInterval, seed: UInt64 = 4961) throws -> Int {
        var error: Int32 = 0
        let descriptor = voice_open_socket_in_namespace(namespace.path, AF_INET, Int32(SOCK_DGRAM.rawValue), 0, &error)
        guard descriptor >= 0 else { throw NetworkNamespaceError("socket in \(namespace.name): errno \(error)") }
        defer { close(descriptor) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        guard inet_pton(AF_INET, host, &local.sin_addr) == 1 else { throw NetworkNamespaceError("not an IPv4 address: \(host)") }
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw NetworkNamespaceError("bind \(host): errno \(errno)") }
        var rng = SplitMix64(seed: seed)
        let ssrc = UInt32.random(in: 1...UInt32.max, using: &rng)
        var sent = 0
        for i in 0..<count {
            let header = RTPHeader(
                payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: 1_000 + i), timestamp: UInt32(truncatingIfNeeded: i * 960), ssrc: ssrc)
            let payload = (0..<80).map { _ in UInt8.random(in: 0...255, using: &rng) }
            guard var packet = try? RTPPacket(header: header, payload: payload).serialized() else { continue }
            packet += (0..<10).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for target in targets {
                let n = packet.withUnsafeBytes { bytes in
                    target.withSockAddr { sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, $1) }
                }
                if n == packet.count { sent += 1 }
            }
            Thread.sleep(forTimeInterval: interval)
        }
        return sent
    }
}
