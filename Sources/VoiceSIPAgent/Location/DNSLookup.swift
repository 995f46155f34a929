import NIOCore
import VoiceDNS

/// What server location asks DNS: a question answered on an event loop, and the hosts file.
/// ``DNSResolver`` asks name servers through c-ares; tests may answer from memory.
package protocol DNSLookup: Sendable {
    /// The answer to `question`, completed on `eventLoop`; a failure is a ``DNSError``.
    func lookup(_ question: DNSQuestion, on eventLoop: EventLoop) -> EventLoopFuture<DNSAnswer>
    /// The addresses the local hosts file gives `name` (A and AAAA records made from it, TTL 0),
    /// completed on `eventLoop`; an empty list when the file does not name it.
    func hostsFileAddresses(_ name: String, on eventLoop: EventLoop) -> EventLoopFuture<[DNSRecordData]>
}
