/// Why a SIP message, header value or URI could not be parsed.
///
/// The set of kinds may grow, so ``Kind`` is a struct with static values rather than an enum.
/// A UAS or proxy answering a malformed request uses ``statusCode`` and ``reasonPhrase``.
package struct SIPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of a parse failure.
    package struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A short, stable name for the kind.
        package let name: String
        init(_ name: String) { self.name = name }
        package var description: String { name }

        /// The input ended before a complete element was read.
        package static let truncated = Kind("truncated")
        /// The input exceeds a configured size limit.
        package static let tooLarge = Kind("too large")
        /// The input is not valid UTF-8 where text was required.
        package static let invalidEncoding = Kind("invalid encoding")
        /// The request line is malformed.
        package static let invalidRequestLine = Kind("invalid request line")
        /// The status line is malformed or the status code is out of range.
        package static let invalidStatusLine = Kind("invalid status line")
        /// The SIP version is not 2.0.
        package static let versionNotSupported = Kind("version not supported")
        /// A method name is not a token.
        package static let invalidMethod = Kind("invalid method")
        /// A URI is malformed.
        package static let invalidURI = Kind("invalid URI")
        /// A header line is malformed (no colon, bad name, bad folding).
        package static let invalidHeaderLine = Kind("invalid header line")
        /// A header value does not match its grammar.
        package static let invalidHeaderValue = Kind("invalid header value")
        /// A header field required in every message is absent.
        package static let missingHeader = Kind("missing header")
        /// A header field that must appear once appears more than once.
        package static let duplicateHeader = Kind("duplicate header")
        /// The CSeq method differs from the request method.
        package static let methodMismatch = Kind("CSeq method mismatch")
        /// Content-Length is malformed or promises more bytes than were received.
        package static let invalidContentLength = Kind("invalid Content-Length")
    }

    /// The category of the failure.
    package let kind: Kind
    /// What exactly was wrong, for logs.
    package let detail: String

    /// Creates an error of `kind` with a human-readable `detail`.
    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The status code a UAS or proxy answers a malformed request with (400, or 505 for a bad version).
    package var statusCode: Int { kind == .versionNotSupported ? 505 : 400 }

    /// The reason phrase to answer with, naming what was wrong.
    package var reasonPhrase: String {
        kind == .versionNotSupported ? "Version Not Supported" : "Bad Request (\(kind.name))"
    }

    package var description: String { "SIP parse error (\(kind.name)): \(detail)" }
}
