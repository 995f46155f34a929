/// The quality of protection a Digest answer uses.
package enum DigestQOP: String, Hashable, Sendable {
    /// Authentication of the request line only.
    case auth = "auth"
    /// Authentication including a hash of the body.
    case authInt = "auth-int"
}
