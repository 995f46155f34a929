#if canImport(Glibc)
    import Glibc
#endif
import CAres
import CVoiceDNS
import CVoiceSys
import Foundation
import NIOCore
import VoiceAddress
import VoiceDNS
import VoiceSupport

/// Asks name servers through c-ares, on a thread of its own: lookups are queued from any
/// thread, the thread starts them, waits on c-ares's sockets and timeouts (and an eventfd that
/// wakes it for new lookups) and completes each lookup's promise with the answer as
/// ``DNSMessage`` and ``DNSAnswer`` read it. Nothing here runs on an event loop.
///
/// c-ares carries the queries (retries, a truncated answer fetched again over TCP, several
/// servers); the answers' bytes are checked here.
package final class DNSResolver: DNSLookup {
    /// Which servers are asked and how long each is waited for.
    package struct Settings: Hashable, Sendable {
        /// `host` or `host:port` (IPv6 in brackets: `[::1]:53`); empty: the system's
        /// (`/etc/resolv.conf`).
        package var nameServers: [String]
        /// How long one try waits for an answer.
        package var timeout: Duration
        /// Tries per server.
        package var tries: Int

        package init(nameServers: [String] = [], timeout: Duration = .milliseconds(1_000), tries: Int = 2) {
            self.nameServers = nameServers
            self.timeout = timeout
            self.tries = tries
        }
    }

    private enum Job {
        case query(DNSQuestion, EventLoopPromise<DNSAnswer>)
        case hostsFile(String, EventLoopPromise<[DNSRecordData]>)
    }

    /// One query in flight, handed to c-ares as its callback's context.
    private final class InFlight {
        let question: DNSQuestion
        let promise: EventLoopPromise<DNSAnswer>
        init(_ question: DNSQuestion, _ promise: EventLoopPromise<DNSAnswer>) {
            self.question = question
            self.promise = promise
        }
    }

    private let shared: WakingJobQueue<Job>

    /// Starts the thread, which creates the c-ares channel (reading `/etc/resolv.conf` when no
    /// server is given: file reads that stay off the caller's event loop). When c-ares cannot
    /// start, every lookup fails with `.resolverFailure` saying why.
    /// - Throws: ``DNSError`` `.resolverFailure` when a name server is not an address, or no
    ///   eventfd can be made.
    package init(_ settings: Settings = Settings()) throws(DNSError) {
        for server in settings.nameServers {
            guard Self.isServerAddress(server) else { throw DNSError(.resolverFailure, "\(server) is not a name server address") }
        }
        guard let shared = WakingJobQueue<Job>() else { throw DNSError(.resolverFailure, "eventfd failed") }
        self.shared = shared
        let thread = Thread {
            switch Self.makeChannel(settings) {
            case .success(let box): Self.run(box, shared)
            case .failure(let error): Self.refuse(shared, error)
            }
        }
        thread.name = "voice-dns"
        thread.start()
    }

    private static func makeChannel(_ settings: Settings) -> Result<ChannelBox, DNSError> {
        let servers = settings.nameServers.isEmpty ? nil : settings.nameServers.joined(separator: ",")
        var status: Int32 = 0
        let timeout = Int32(clamping: max(1, MediaTime(settings.timeout).nanoseconds / 1_000_000))
        let tries = Int32(max(1, settings.tries))
        let channel: OpaquePointer? =
            if let servers { voice_dns_create(servers, timeout, tries, &status) } else { voice_dns_create(nil, timeout, tries, &status) }
        guard let channel else { return .failure(DNSError(.resolverFailure, "c-ares: \(String(cString: voice_dns_status_text(status)))")) }
        return .success(ChannelBox(channel))
    }

    /// With no channel: every lookup, queued or to come, fails with `error` until shutdown.
    private static func refuse(_ shared: WakingJobQueue<Job>, _ error: DNSError) {
        while true {
            let (jobs, stopped) = shared.take()
            for case .query(_, let promise) in jobs { promise.fail(error) }
            for case .hostsFile(_, let promise) in jobs { promise.succeed([]) }
            if stopped {
                close(shared.wake)
                return
            }
            var pollfd = Glibc.pollfd(fd: shared.wake, events: Int16(POLLIN), revents: 0)
            _ = poll(&pollfd, 1, 1_000)
            shared.drainWake()
        }
    }

    deinit { shutdown() }

    /// Stops the thread; lookups in flight and later ones fail with `.resolverFailure`.
    package func shutdown() { shared.stop() }

    package func lookup(_ question: DNSQuestion, on eventLoop: EventLoop) -> EventLoopFuture<DNSAnswer> {
        let promise = eventLoop.makePromise(of: DNSAnswer.self)
        enqueue(.query(question, promise)) { promise.fail(DNSError(.resolverFailure, "the resolver is shut down")) }
        return promise.futureResult
    }

    package func hostsFileAddresses(_ name: String, on eventLoop: EventLoop) -> EventLoopFuture<[DNSRecordData]> {
        let promise = eventLoop.makePromise(of: [DNSRecordData].self)
        enqueue(.hostsFile(name, promise)) { promise.succeed([]) }
        return promise.futureResult
    }

    private func enqueue(_ job: sending Job, otherwise: () -> Void) {
        if !shared.enqueue(job) { otherwise() }
    }

    // MARK: - On the resolver thread

    /// The channel pointer, handed to the thread that alone uses it.
    private final class ChannelBox: @unchecked Sendable {
        let channel: OpaquePointer
        init(_ channel: OpaquePointer) { self.channel = channel }
    }

    private static func run(_ box: ChannelBox, _ shared: WakingJobQueue<Job>) {
        let channel = box.channel
        while true {
            let (jobs, stopped) = shared.take()
            if stopped {
                // Destroying the channel runs every pending callback (ARES_EDESTRUCTION).
                voice_dns_destroy(channel)
                for case .query(_, let promise) in jobs { promise.fail(DNSError(.resolverFailure, "the resolver is shut down")) }
                for case .hostsFile(_, let promise) in jobs { promise.succeed([]) }
                close(shared.wake)
                return
            }
            for job in jobs {
                switch job {
                case .query(let question, let promise):
                    let context = Unmanaged.passRetained(InFlight(question, promise)).toOpaque()
                    voice_dns_query(channel, question.name, Int32(question.type.rawValue), Self.finished, context)
                case .hostsFile(let name, let promise):
                    promise.succeed(hostsFile(channel, name))
                }
            }
            if voice_dns_process(channel, shared.wake, 1_000) == 1 { shared.drainWake() }
        }
    }

    private static let finished: voice_dns_callback = { context, status, answer, length in
        guard let context else { return }
        let query = Unmanaged<InFlight>.fromOpaque(context).takeRetainedValue()
        let bytes = answer.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, length)))) }
        switch outcome(status: status, answer: bytes, question: query.question) {
        case .success(let answer): query.promise.succeed(answer)
        case .failure(let error): query.promise.fail(error)
        }
    }

    private static func hostsFile(_ channel: OpaquePointer, _ name: String) -> [DNSRecordData] {
        var records: [DNSRecordData] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 8)
        for (family, size) in [(AF_INET, 4), (AF_INET6, 16)] {
            let count = Int(voice_dns_hosts_file(channel, name, family, &buffer, Int32(buffer.count)))
            for index in 0..<count {
                if let ip = IPAddress(bytes: buffer[(index * size)..<((index + 1) * size)]) { records.append(.address(ip)) }
            }
        }
        return records
    }

    /// The answer c-ares's `status` and bytes amount to: the bytes when there are any (so a
    /// negative answer keeps its SOA's TTL), else the status.
    package static func outcome(status: Int32, answer: [UInt8]?, question: DNSQuestion) -> Result<DNSAnswer, DNSError> {
        if let answer, !answer.isEmpty {
            do {
                return .success(try DNSAnswer(DNSMessage(parsing: answer), for: question))
            } catch {
                return .failure(error)
            }
        }
        let text = "\(question): \(String(cString: voice_dns_status_text(status)))"
        switch status {
        case ARES_ETIMEOUT: return .failure(DNSError(.timeout, text))
        case ARES_ENOTFOUND: return .failure(DNSError(.nameNotFound, text))
        case ARES_ENODATA: return .failure(DNSError(.noRecords, text))
        case ARES_EBADRESP, ARES_EFORMERR: return .failure(DNSError(.malformed, text))
        case ARES_ESERVFAIL, ARES_EREFUSED, ARES_ECONNREFUSED, ARES_ENOTIMP: return .failure(DNSError(.serverFailure, text))
        default: return .failure(DNSError(.resolverFailure, text))
        }
    }

    /// Whether `server` is `ip`, `ip:port` or `[ipv6]:port`.
    package static func isServerAddress(_ server: String) -> Bool {
        if IPAddress(server) != nil { return true }
        if server.hasPrefix("["), let close = server.firstIndex(of: "]") {
            let host = String(server[server.index(after: server.startIndex)..<close])
            let rest = server[server.index(after: close)...]
            guard IPAddress(host) != nil else { return false }
            return rest.isEmpty || (rest.hasPrefix(":") && UInt16(rest.dropFirst()) != nil)
        }
        let parts = server.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && IPAddress(String(parts[0])) != nil && UInt16(parts[1]) != nil
    }
}
