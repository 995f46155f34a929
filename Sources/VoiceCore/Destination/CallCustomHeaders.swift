import VoiceSIP

/// The custom `X-` headers an outgoing INVITE carries: the ``ConnectOptions`` parameters other
/// than `To`, and headers given for a SIP destination.
///
/// Rules, checked before any traffic (a violation is 31100 ``VoiceError/Code/malformedRequest``):
/// - header names start with `X-` or `x-`, have at least one more character and are RFC 3261
///   tokens; names starting with `X-Twilio-` belong to the SDK and are refused;
/// - values have no control characters (CR, LF, NUL…) other than tab;
/// - no name twice (compared without case);
/// - the total of names and values is at most ``maximumTotalLength`` bytes (Sinch's limit
///   for App-to-SIP headers, applied to every call).
///
/// A parameter `customer=42` becomes `X-customer: 42`: the name gets `X-` and is otherwise
/// kept, the value is URI-encoded. `customParameters(from:)` is the reverse on the callee.
package struct CallCustomHeaders: Sendable, Equatable {
    /// Limit on the sum of the names' and values' UTF-8 lengths.
    package static let maximumTotalLength = 1024
    /// Names the SDK reserves for itself (e.g. `CallSid.headerName`).
    package static let reservedPrefix = "X-Twilio-"
    /// The parameter that names the destination and is not sent as a header.
    package static let destinationParameter = "To"

    /// The header fields, in order.
    package private(set) var fields: [SIPHeaders.Field]

    /// Validates headers given as name/value pairs, kept in order.
    package init(_ headers: [(name: String, value: String)]) throws(VoiceError) {
        fields = []
        var names = Set<String>()
        var total = 0
        for (name, value) in headers {
            try Self.check(name: name, value: value)
            guard names.insert(name.lowercased()).inserted else {
                throw CallDestination.invalid("The header \(name) is given twice")
            }
            total += name.utf8.count + value.utf8.count
            guard total <= Self.maximumTotalLength else {
                throw CallDestination.invalid("The custom headers exceed \(Self.maximumTotalLength) bytes")
            }
            fields.append(SIPHeaders.Field(name: name, value: value))
        }
    }

    /// Validates headers given as a dictionary; they are sent sorted by name.
    package init(_ headers: [String: String]) throws(VoiceError) {
        try self.init(headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
    }

    /// The headers for connect parameters (every one but `To`, sorted by name, as
    /// `X-<name>: <URI-encoded value>`) followed by `headers` for a SIP destination.
    package init(parameters: [String: String], headers: [String: String] = [:]) throws(VoiceError) {
        let fromParameters = parameters.filter { $0.key != Self.destinationParameter }
            .sorted { $0.key < $1.key }
            .map { (name: "X-" + $0.key, value: CallParameterPercentEncoding.encode($0.value)) }
        let direct = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        try self.init(fromParameters + direct)
    }

    /// Adds the fields to a message's headers.
    package func apply(to headers: inout SIPHeaders) {
        for field in fields { headers.add(field.name, field.value) }
    }

    /// The custom parameters a received INVITE carries: every `X-`/`x-` header outside
    /// ``reservedPrefix``, named without the `X-` (the name is not decoded), its value
    /// URI-decoded (kept as received when it is not valid percent-encoding). The first of
    /// two same-named headers wins.
    package static func customParameters(from headers: SIPHeaders) -> [String: String] {
        var parameters: [String: String] = [:]
        for field in headers {
            let lower = field.name.lowercased()
            guard lower.hasPrefix("x-"), field.name.count > 2, !lower.hasPrefix(reservedPrefix.lowercased()) else {
                continue
            }
            let name = String(field.name.dropFirst(2))
            guard parameters[name] == nil else { continue }
            parameters[name] = (try? CallParameterPercentEncoding.decode(field.value[...])) ?? field.value
        }
        return parameters
    }

    private static func check(name: String, value: String) throws(VoiceError) {
        let lower = name.lowercased()
        guard lower.hasPrefix("x-"), name.utf8.count > 2 else {
            throw CallDestination.invalid("Custom header names start with X- (got \"\(name)\")")
        }
        guard !lower.hasPrefix(reservedPrefix.lowercased()) else {
            throw CallDestination.invalid("The header name \(name) is reserved")
        }
        guard name.utf8.allSatisfy(isTokenByte) else {
            throw CallDestination.invalid("The header name \"\(name)\" is not a SIP token")
        }
        guard !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            throw CallDestination.invalid("The value of \(name) has a control character")
        }
    }

    /// RFC 3261 token: alphanum and `-.!%*_+`'~`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        CallParameterPercentEncoding.isUnreserved(byte) || "!%*+`'".utf8.contains(byte)
    }
}
