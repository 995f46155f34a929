/// The custom parameters of a call invite notification: the `twi_params` value, a query
/// string (`key1=value1&key2=value2`) whose values are URI-decoded and whose names are taken
/// as they are (Twilio's `TVOCallInvite.customParameters`).
package enum CallInviteCustomParameters {
    /// The notification payload key that holds the parameters.
    package static let payloadKey = "twi_params"
    /// Size limit on the query string, in bytes.
    package static let maximumLength = 16_384
    /// Limit on the number of parameters.
    package static let maximumCount = 256

    /// Parses a query string, read through a cursor pair by pair. Empty pairs (`a=1&&b=2`)
    /// are skipped; a pair without `=` is a name with an empty value; when a name repeats,
    /// the last value wins. `+` is kept as `+` (values are percent-encoded, not form-encoded).
    ///
    /// Throws 31100 ``VoiceError/Code/malformedRequest`` for a string over the limits, an
    /// empty name, or a value that is not valid percent-encoded UTF-8.
    package static func parse(_ query: String) throws(VoiceError) -> [String: String] {
        guard query.utf8.count <= maximumLength else {
            throw invalid("twi_params is \(query.utf8.count) bytes; the limit is \(maximumLength)")
        }
        var parameters: [String: String] = [:]
        var count = 0
        var cursor = query.startIndex
        while cursor < query.endIndex {
            let end = query[cursor...].firstIndex(of: "&") ?? query.endIndex
            let pair = query[cursor..<end]
            cursor = end < query.endIndex ? query.index(after: end) : end
            if pair.isEmpty { continue }
            count += 1
            guard count <= maximumCount else { throw invalid("twi_params has more than \(maximumCount) parameters") }
            let name: Substring
            let rawValue: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                rawValue = pair[pair.index(after: equals)...]
            } else {
                name = pair
                rawValue = ""
            }
            guard !name.isEmpty else { throw invalid("twi_params has a parameter with no name") }
            do {
                parameters[String(name)] = try CallParameterPercentEncoding.decode(rawValue)
            } catch {
                throw invalid("The value of twi_params parameter \"\(name)\" is not valid percent-encoding")
            }
        }
        return parameters
    }

    /// The parameters of a notification payload: ``parse(_:)`` of its ``payloadKey`` value,
    /// empty when the key is absent.
    package static func parse(payload: [String: String]) throws(VoiceError) -> [String: String] {
        guard let query = payload[payloadKey] else { return [:] }
        return try parse(query)
    }

    private static func invalid(_ reason: String) -> VoiceError {
        VoiceError(.malformedRequest, failureReason: reason)
    }
}
