import VoiceAddress
import VoiceBytes

/// Multicast DNS (RFC 6762) as far as resolving a peer's `.local` ICE candidates needs it: the
/// one-question query we send, and the responses we read (ours or anyone's on the link).
///
/// A response differs from unicast DNS: its ID is 0 and not matched, it usually has no question
/// section, and a record's class carries the cache-flush bit (§10.2). Parsing is bounded as
/// ``DNSMessage``'s is (same cursor, same name reader, same record limit).
package struct MulticastDNSResponse: Hashable, Sendable {
    /// Every record of the answer and additional sections (§6: answers may come in either).
    package var records: [DNSResourceRecord]

    package init(records: [DNSResourceRecord]) {
        self.records = records
    }

    /// The query for `name`'s records of `type`: ID 0, no flags, one question of class IN with
    /// the unicast-response bit clear (browsers ignore a QU question, and answer to the group).
    package static func query(for name: String, type: DNSRecordType) -> [UInt8] {
        var bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        bytes += DNSMessage.name(name)
        bytes += [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF), 0, 1]
        return bytes
    }

    /// The addresses the records give `name` (compared case-insensitively), IPv6 or IPv4 as
    /// they come; a record with TTL 0 says the name is going away (§10.1) and gives none.
    package func addresses(of name: String) -> [IPAddress] {
        let wanted = DNSName.normalized(name)
        return records.compactMap { record in
            guard record.name == wanted, record.ttl > 0, case .address(let ip) = record.data else { return nil }
            return ip
        }
    }

    /// Parses a datagram received on the mDNS port. Queries (QR clear), and responses with an
    /// opcode or response code other than 0, are `.malformed` for this use (§18.3, §18.11).
    package init(parsing bytes: [UInt8]) throws(DNSError) {
        self = try DNSMessage.parsing(bytes, atMost: 9_000, with: Self.parse)
    }

    private static func parse(_ message: UnsafeRawBufferPointer) throws(DNSError) -> MulticastDNSResponse {
        var reader = ByteReader(message)
        _ = try DNSMessage.read { () throws(ByteReader.Error) in try reader.readUInt16() }
        let flags = try DNSMessage.read { () throws(ByteReader.Error) in try reader.readUInt16() }
        guard flags & 0x8000 != 0 else { throw DNSError(.malformed, "a query, not a response") }
        guard flags & 0x7800 == 0, flags & 0x000F == 0 else { throw DNSError(.malformed, "opcode or rcode not 0") }
        var counts: [Int] = []
        for _ in 0..<4 { counts.append(Int(try DNSMessage.read { () throws(ByteReader.Error) in try reader.readUInt16() })) }
        guard counts.reduce(0, +) <= DNSMessage.maximumRecords else { throw DNSError(.oversized, "\(counts.reduce(0, +)) entries") }
        var names = DNSNameReader(message: message)
        for _ in 0..<counts[0] {
            let (_, afterName) = try names.read(at: reader.offset)
            try DNSMessage.read { () throws(ByteReader.Error) in try reader.skip(afterName - reader.offset + 4) }
        }
        var records: [DNSResourceRecord] = []
        for section in 1..<4 {
            for _ in 0..<counts[section] {
                let record = try DNSMessage.record(&reader, names: &names, classMask: 0x7FFF)
                if section != 2 { records.append(record) }
            }
        }
        return MulticastDNSResponse(records: records)
    }
}
