/// Why STUN bytes were refused, or why a Binding transaction failed.
package enum STUNError: Error, Hashable, Sendable {
    /// Not a STUN message (top bits set or no magic cookie).
    case notSTUN
    /// The header's length disagrees with the bytes, or is not a multiple of four.
    case badLength
    /// An attribute or the header runs past the end.
    case truncated
    /// An address attribute with an unknown family or a wrong size.
    case badAddress
    /// The server answered with an error (ERROR-CODE's class × 100 + number).
    case errorResponse(Int)
    /// A success response without any mapped address.
    case noMappedAddress
    /// No answer within the transaction's time.
    case timedOut
    /// A password that SASLprep (RFC 4013) prohibits: control or private-use characters…
    case badCredentials
    /// A socket call failed (its errno).
    case socket(Int32)
}
