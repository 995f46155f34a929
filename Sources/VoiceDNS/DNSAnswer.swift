/// The usable part of a response to one question: the records of the type asked, found at the
/// end of a bounded CNAME chain, and how long they may be cached.
///
/// A response is checked before anything of it is used: it must answer the question asked
/// (name and type), a CNAME chain may not loop or run longer than ``maximumAliases``, and
/// records for names outside the chain are ignored (an answer holding only such records is
/// `.nameMismatch`). NXDOMAIN and NODATA become errors carrying their negative TTL (RFC 2308).
package struct DNSAnswer: Hashable, Sendable {
    /// The most CNAMEs followed.
    package static let maximumAliases = 8

    /// The question answered.
    package var question: DNSQuestion
    /// The records of the asked type, in the order the server gave them.
    package var records: [DNSRecordData]
    /// Seconds the answer may be cached: the smallest TTL along the chain.
    package var ttl: UInt32
    /// Address records of the additional section (for an SRV answer, its targets' addresses).
    package var additionals: [DNSResourceRecord]

    package init(question: DNSQuestion, records: [DNSRecordData], ttl: UInt32, additionals: [DNSResourceRecord] = []) {
        self.question = question
        self.records = records
        self.ttl = ttl
        self.additionals = additionals
    }

    /// Reads the answer to `question` out of `message`.
    package init(_ message: DNSMessage, for question: DNSQuestion) throws(DNSError) {
        guard message.isResponse else { throw DNSError(.malformed, "\(question): a query, not a response") }
        guard message.question == question else {
            throw DNSError(.nameMismatch, "asked \(question), answered \(message.question)")
        }
        let negativeTTL = message.authorities.lazy.compactMap { record -> UInt32? in
            if case .soa(let minimum) = record.data { min(record.ttl, minimum) } else { nil }
        }.first ?? 0
        switch message.responseCode {
        case 0: break
        case 3: throw DNSError(.nameNotFound, "\(question)", negativeTTL: negativeTTL)
        case let code: throw DNSError(.serverFailure, "\(question): RCODE \(code)")
        }
        guard !message.isTruncated else { throw DNSError(.truncated, "\(question): the answer came truncated") }
        var current = question.name
        var visited: Set<String> = [current]
        var ttl = UInt32.max
        while true {
            let found = message.answers.filter { $0.name == current && $0.type == question.type }
            if !found.isEmpty {
                ttl = min(ttl, found.map(\.ttl).min() ?? 0)
                var records = found.map(\.data)
                if question.type == .srv {
                    records.removeAll { if case .srv(let srv) = $0 { srv.target.isEmpty } else { true } }
                    guard !records.isEmpty else { throw DNSError(.serviceNotOffered, "\(question): the target is \".\"") }
                }
                let additionals = message.additionals.filter { $0.type == .a || $0.type == .aaaa }
                self.init(question: question, records: records, ttl: ttl, additionals: additionals)
                return
            }
            guard let alias = message.answers.first(where: { $0.name == current && $0.type == .cname }),
                case .cname(let target) = alias.data
            else { break }
            guard !visited.contains(target) else { throw DNSError(.aliasLoop, "\(question): \(current) leads back to \(target)") }
            guard visited.count <= Self.maximumAliases else {
                throw DNSError(.aliasLoop, "\(question): more than \(Self.maximumAliases) CNAMEs")
            }
            visited.insert(target)
            ttl = min(ttl, alias.ttl)
            current = target
        }
        if message.answers.contains(where: { !visited.contains($0.name) }) {
            throw DNSError(.nameMismatch, "\(question): records only for other names (\(message.answers[0].name))")
        }
        throw DNSError(.noRecords, "\(question)", negativeTTL: negativeTTL)
    }

    /// The addresses the additional section gives for `host` (an SRV target), A before AAAA.
    package func additionalAddresses(for host: String) -> [DNSRecordData] {
        additionals.filter { $0.name == host }.sorted { $0.type.rawValue < $1.type.rawValue }.map(\.data)
    }
}
