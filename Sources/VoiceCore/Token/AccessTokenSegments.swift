/// The three dot-separated segments of a compact JWT (RFC 7519 §3), split by a cursor.
struct AccessTokenSegments {
    /// The base64url header, payload and signature segments.
    let header: ArraySlice<UInt8>
    let payload: ArraySlice<UInt8>
    let signature: ArraySlice<UInt8>

    /// Splits `bytes` into exactly three segments; nil for any other count.
    init?(_ bytes: [UInt8]) {
        var segments: [ArraySlice<UInt8>] = []
        var cursor = bytes.startIndex
        var start = cursor
        while cursor < bytes.endIndex {
            if bytes[cursor] == UInt8(ascii: ".") {
                segments.append(bytes[start..<cursor])
                if segments.count > 2 { return nil }
                start = cursor + 1
            }
            cursor += 1
        }
        segments.append(bytes[start..<cursor])
        guard segments.count == 3 else { return nil }
        header = segments[0]
        payload = segments[1]
        signature = segments[2]
    }
}
