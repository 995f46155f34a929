import VoiceAddress
import VoiceBytes

/// A DNS response as it came from the wire (RFC 1035 §4.1), read with a cursor: its header
/// flags, its one question and the records of its three sections.
///
/// Parsing is bounded: a message over 65,535 bytes or with more than ``maximumRecords`` records
/// is `.oversized`; a compression pointer must point backwards (so a name cannot loop); a name
/// is at most 255 bytes and its labels hold printable ASCII only.
package struct DNSMessage: Hashable, Sendable {
    /// The most records (all sections together) a message may hold.
    package static let maximumRecords = 256

    /// The message ID.
    package var id: UInt16
    /// QR: whether this is a response.
    package var isResponse: Bool
    /// TC: the message was cut to fit a datagram.
    package var isTruncated: Bool
    /// RCODE (0 no error, 2 server failure, 3 no such name, 5 refused).
    package var responseCode: UInt8
    /// The question the message answers.
    package var question: DNSQuestion
    /// The answer section.
    package var answers: [DNSResourceRecord]
    /// The authority section (where a negative answer's SOA is).
    package var authorities: [DNSResourceRecord]
    /// The additional section (addresses of SRV targets, when the server adds them).
    package var additionals: [DNSResourceRecord]

    package init(
        id: UInt16 = 0, isResponse: Bool = true, isTruncated: Bool = false, responseCode: UInt8 = 0, question: DNSQuestion,
        answers: [DNSResourceRecord] = [], authorities: [DNSResourceRecord] = [], additionals: [DNSResourceRecord] = []
    ) {
        self.id = id
        self.isResponse = isResponse
        self.isTruncated = isTruncated
        self.responseCode = responseCode
        self.question = question
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// Parses `bytes`, a whole DNS message.
    package init(parsing bytes: [UInt8]) throws(DNSError) {
        self = try Self.parsing(bytes, atMost: 65_535, with: Self.parse)
    }

    /// Runs `parse` over `bytes`, a message of at most `limit` bytes (`.oversized` beyond).
    static func parsing<Message>(
        _ bytes: [UInt8], atMost limit: Int, with parse: (UnsafeRawBufferPointer) throws(DNSError) -> Message
    ) throws(DNSError) -> Message {
        guard bytes.count <= limit else { throw DNSError(.oversized, "\(bytes.count) bytes") }
        var result: Result<Message, DNSError> = .failure(DNSError(.malformed, "empty"))
        bytes.withUnsafeBytes { buffer in
            do throws(DNSError) {
                result = .success(try parse(buffer))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    private static func parse(_ message: UnsafeRawBufferPointer) throws(DNSError) -> DNSMessage {
        var reader = ByteReader(message)
        let id = try read { () throws(ByteReader.Error) in try reader.readUInt16() }
        let flags = try read { () throws(ByteReader.Error) in try reader.readUInt16() }
        let questions = try read { () throws(ByteReader.Error) in try reader.readUInt16() }
        var counts: [Int] = []
        for _ in 0..<3 { counts.append(Int(try read { () throws(ByteReader.Error) in try reader.readUInt16() })) }
        guard questions == 1 else { throw DNSError(.malformed, "\(questions) questions") }
        guard counts.reduce(0, +) <= maximumRecords else { throw DNSError(.oversized, "\(counts.reduce(0, +)) records") }
        var names = DNSNameReader(message: message)
        let (name, afterName) = try names.read(at: reader.offset)
        try read { () throws(ByteReader.Error) in try reader.skip(afterName - reader.offset) }
        let type = try read { () throws(ByteReader.Error) in try reader.readUInt16() }
        _ = try read { () throws(ByteReader.Error) in try reader.readUInt16() }
        var sections: [[DNSResourceRecord]] = [[], [], []]
        for section in 0..<3 {
            for _ in 0..<counts[section] {
                sections[section].append(try record(&reader, names: &names))
            }
        }
        return DNSMessage(
            id: id, isResponse: flags & 0x8000 != 0, isTruncated: flags & 0x0200 != 0, responseCode: UInt8(flags & 0x000F),
            question: DNSQuestion(name, DNSRecordType(rawValue: type)), answers: sections[0], authorities: sections[1],
            additionals: sections[2])
    }

    /// One record at the reader. `classMask` takes the class's top bit off for mDNS, where it
    /// is the cache-flush flag (RFC 6762 §10.2); unicast DNS keeps the whole class.
    static func record(
        _ reader: inout ByteReader, names: inout DNSNameReader, classMask: UInt16 = 0xFFFF
    ) throws(DNSError) -> DNSResourceRecord {
        let (owner, afterName) = try names.read(at: reader.offset)
        try read { () throws(ByteReader.Error) in try reader.skip(afterName - reader.offset) }
        let type = DNSRecordType(rawValue: try read { () throws(ByteReader.Error) in try reader.readUInt16() })
        let recordClass = try read { () throws(ByteReader.Error) in try reader.readUInt16() } & classMask
        let rawTTL = try read { () throws(ByteReader.Error) in try reader.readUInt32() }
        // RFC 2181 §8: a TTL with the top bit set is read as zero.
        let ttl = rawTTL & 0x8000_0000 != 0 ? 0 : rawTTL
        let length = Int(try read { () throws(ByteReader.Error) in try reader.readUInt16() })
        let start = reader.offset
        let rdata = try read { () throws(ByteReader.Error) in try reader.readBytes(length) }
        let end = start + length
        guard recordClass == 1 else { return DNSResourceRecord(name: owner, ttl: ttl, data: .other(type)) }
        var data = ByteReader(rdata)
        let value: DNSRecordData
        switch type {
        case .a, .aaaa:
            guard length == (type == .a ? 4 : 16), let ip = IPAddress(bytes: Array(rdata)) else {
                throw DNSError(.malformed, "\(type) record of \(length) bytes")
            }
            value = .address(ip)
        case .cname:
            value = .cname(try names.read(at: start, within: end).name)
        case .srv:
            let priority = try read { () throws(ByteReader.Error) in try data.readUInt16() }
            let weight = try read { () throws(ByteReader.Error) in try data.readUInt16() }
            let port = try read { () throws(ByteReader.Error) in try data.readUInt16() }
            let target = try names.read(at: start + 6, within: end).name
            value = .srv(DNSServiceRecord(priority: priority, weight: weight, port: port, target: target))
        case .naptr:
            let order = try read { () throws(ByteReader.Error) in try data.readUInt16() }
            let preference = try read { () throws(ByteReader.Error) in try data.readUInt16() }
            var strings: [String] = []
            for _ in 0..<3 {
                let count = Int(try read { () throws(ByteReader.Error) in try data.readUInt8() })
                let bytes = try read { () throws(ByteReader.Error) in try data.readBytes(count) }
                guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { throw DNSError(.malformed, "NAPTR text with a control byte") }
                strings.append(String(decoding: bytes, as: UTF8.self))
            }
            let replacement = try names.read(at: start + data.offset, within: end).name
            value = .naptr(
                DNSNamingPointer(
                    order: order, preference: preference, flags: strings[0], service: strings[1], regexp: strings[2],
                    replacement: replacement))
        case .soa:
            let (_, afterPrimary) = try names.read(at: start, within: end)
            let (_, afterMailbox) = try names.read(at: afterPrimary, within: end)
            guard end - afterMailbox == 20 else { throw DNSError(.malformed, "SOA record of \(length) bytes") }
            var numbers = ByteReader(UnsafeRawBufferPointer(rebasing: rdata[(afterMailbox - start)...]))
            try read { () throws(ByteReader.Error) in try numbers.skip(16) }
            value = .soa(minimum: try read { () throws(ByteReader.Error) in try numbers.readUInt32() })
        default:
            value = .other(type)
        }
        return DNSResourceRecord(name: owner, ttl: ttl, data: value)
    }

    static func read<T>(_ body: () throws(ByteReader.Error) -> T) throws(DNSError) -> T {
        do {
            return try body()
        } catch {
            throw DNSError(.truncated, "the message ends inside a record")
        }
    }
}
