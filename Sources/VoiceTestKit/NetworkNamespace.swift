import CVoiceSys
import Foundation
import Synchronization

/// A network namespace a test creates (`ip netns add`) to change links, addresses and routes
/// for real — the kernel sends the same rtnetlink events as on a laptop that changes networks —
/// without touching the host's own. Deleted by ``delete()`` or on deinit.
package final class NetworkNamespace: Sendable {
    package let name: String
    private let deleted = Atomic<Bool>(false)

    /// What `ip netns add` makes: the path a process or socket enters the namespace by.
    package var path: String { "/run/netns/\(name)" }

    private static let counter = Atomic<Int>(0)

    /// Creates a namespace named `<prefix>-<pid>-<n>` with its loopback up.
    package init(prefix: String = "vt") throws(NetworkNamespaceError) {
        name = "\(prefix)-\(getpid())-\(Self.counter.add(1, ordering: .relaxed).newValue)"
        try Self.run(["netns", "add", name])
        do {
            try ip("link", "set", "lo", "up")
        } catch {
            delete()
            throw error
        }
    }

    deinit { delete() }

    /// Runs `ip -n <name> <arguments>`.
    package func ip(_ arguments: String...) throws(NetworkNamespaceError) { try Self.run(["-n", name] + arguments) }

    /// Runs several `ip` commands (one per line, without the leading `ip`) in one process
    /// (`ip -batch`), so the kernel sees them back to back, as from a DHCP client.
    package func batch(_ commands: String...) throws(NetworkNamespaceError) { try batch(commands) }

    /// ``batch(_:)-(String...)`` with the commands in an array.
    package func batch(_ commands: [String]) throws(NetworkNamespaceError) {
        try Self.run(["-n", name, "-batch", "-"], input: commands.joined(separator: "\n") + "\n")
    }

    /// Runs a command inside the namespace (`ip netns exec`), `nft` say; throws with its error
    /// output when it fails.
    package func exec(_ command: String...) throws(NetworkNamespaceError) { try Self.run(["netns", "exec", name] + command) }

    /// Runs `ip <arguments>` in the host's namespace (to move a link in, say).
    package static func run(_ arguments: [String], input: String? = nil) throws(NetworkNamespaceError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ipPath)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let stdin = Pipe()
        if input != nil { process.standardInput = stdin }
        do {
            try process.run()
        } catch {
            throw NetworkNamespaceError("cannot run ip: \(error)")
        }
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw NetworkNamespaceError("ip \(arguments.joined(separator: " ")): \(text)")
        }
    }

    /// Two new namespaces joined by a veth pair: `ends.0` in the first, `ends.1` in the second,
    /// both down and without addresses. Deleting a namespace removes its end.
    package static func linkedPair(
        prefixes: (String, String), ends: (String, String)
    ) throws(NetworkNamespaceError) -> (NetworkNamespace, NetworkNamespace) {
        let first = try NetworkNamespace(prefix: prefixes.0)
        let second: NetworkNamespace
        do {
            second = try NetworkNamespace(prefix: prefixes.1)
            try run(["link", "add", ends.0, "netns", first.name, "type", "veth", "peer", "name", ends.1, "netns", second.name])
        } catch {
            first.delete()
            throw error
        }
        return (first, second)
    }

    /// Runs `body` on a thread of its own moved into the namespace, and waits for it: the
    /// sockets `body` opens, and the threads it starts, live in the namespace (a resolver's
    /// thread, say), while the caller's thread stays where it is.
    package func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let path = self.path
        let thread = Thread {
            let entered = voice_enter_namespace(path)
            let outcome: Result<T, any Error> =
                entered == 0 ? Result { try body() } : .failure(NetworkNamespaceError("setns \(path): errno \(entered)"))
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.start()
        done.wait()
        return try result.withLock { $0 }!.get()
    }

    /// Deletes the namespace (and every link in it); idempotent.
    package func delete() {
        guard !deleted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? Self.run(["netns", "delete", name])
    }

    package static var ipPath: String {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/sbin/ip"
    }

    /// Whether namespace tests can run here: `ip` (iproute2) is installed and we are root.
    /// Like a missing SIP peer: skip locally, fail under `CI=true`.
    package static func requirement(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> SIPPeerRequirement {
        let missing: String? =
            !FileManager.default.isExecutableFile(atPath: ipPath)
            ? "ip (iproute2) is not installed; install it with scripts/install-deps.sh"
            : getuid() != 0 ? "network namespaces need root" : nil
        guard let missing else { return .available }
        return environment["CI"]?.lowercased() == "true" ? .fail("\(missing), but CI=true requires it") : .skip(missing)
    }
}

/// An `ip` command failed.
package struct NetworkNamespaceError: Error, Hashable, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
