/// Identifies a transaction by the matching rules of RFC 3261 §17.1.3 (client) and §17.2.3
/// (server). Two messages belong to the same transaction exactly when their keys are equal.
package struct SIPTransactionKey: Hashable, Sendable, CustomStringConvertible {
    /// Which side of the transaction this stack is on.
    package enum Role: Hashable, Sendable {
        /// We sent the request.
        case client
        /// We received the request.
        case server
    }

    /// The RFC 3261 magic cookie that starts every compliant branch.
    package static let magicCookie = "z9hG4bK"
    /// Longest branch accepted.
    package static let maximumBranchLength = 256
    /// Longest method accepted.
    package static let maximumMethodLength = 32
    /// Longest sent-by host accepted.
    package static let maximumHostLength = 255

    /// Client or server.
    package let role: Role
    /// The top Via branch; empty for RFC 2543 server keys, which use ``legacy`` instead.
    package let branch: String
    /// Server keys: the top Via sent-by, host lowercased, default port filled in. Empty for client keys.
    package let sentBy: String
    /// The method of the request that created the transaction (ACK is folded into INVITE on servers).
    package let method: String
    /// Server keys for RFC 2543 peers: the legacy matching values.
    package let legacy: SIPTransactionRequestIdentity.Legacy?

    private init(role: Role, branch: String, sentBy: String, method: String, legacy: SIPTransactionRequestIdentity.Legacy?) {
        self.role = role
        self.branch = branch
        self.sentBy = sentBy
        self.method = method
        self.legacy = legacy
    }

    /// The key of a client transaction for an outgoing request, and of the responses that match
    /// it (§17.1.3: top Via branch and CSeq method; a CANCEL shares the INVITE's branch but not
    /// its transaction).
    /// - Parameters:
    ///   - branch: The branch of the top Via the request carries (the response's top Via branch).
    ///   - method: The request method (the response's CSeq method).
    /// - Throws: ``SIPTransactionError/invalidBranch``, ``SIPTransactionError/invalidMethod``,
    ///   ``SIPTransactionError/ackIsNotATransaction``.
    package static func client(branch: String, method: String) throws(SIPTransactionError) -> SIPTransactionKey {
        try validate(method: method)
        guard method != "ACK" else { throw .ackIsNotATransaction }
        try validate(branch: branch)
        return SIPTransactionKey(role: .client, branch: branch, sentBy: "", method: method, legacy: nil)
    }

    /// The key of the server transaction a received request belongs to (§17.2.3).
    ///
    /// With a magic-cookie branch: branch, sent-by and method, where an ACK matches the INVITE.
    /// Otherwise, from ``SIPTransactionRequestIdentity/legacy``: Request-URI, Call-ID, From tag,
    /// CSeq number, top Via sent-by and method (ACK folded into INVITE). The To tag is not part
    /// of the legacy key: the INVITE carries none while its ACK carries the response's.
    /// - Throws: ``SIPTransactionError/invalidBranch`` (also when a non-cookie branch comes
    ///   without legacy values), ``SIPTransactionError/invalidMethod``, ``SIPTransactionError/invalidSentBy``.
    package static func server(for request: SIPTransactionRequestIdentity) throws(SIPTransactionError) -> SIPTransactionKey {
        try validate(method: request.method)
        let sentBy = try normalizedSentBy(host: request.sentByHost, port: request.sentByPort, transport: request.transport)
        let method = request.method == "ACK" ? "INVITE" : request.method
        if let branch = request.branch, branch.hasPrefix(magicCookie) {
            try validate(branch: branch)
            return SIPTransactionKey(role: .server, branch: branch, sentBy: sentBy, method: method, legacy: nil)
        }
        if let branch = request.branch { try validate(branch: branch) }
        guard let legacy = request.legacy else { throw .invalidBranch }
        return SIPTransactionKey(role: .server, branch: "", sentBy: sentBy, method: method, legacy: legacy)
    }

    /// For the server key of a CANCEL, the key of the INVITE server transaction it cancels
    /// (RFC 3261 §9.2: same matching values, method INVITE); nil for other methods.
    package var cancelledInviteKey: SIPTransactionKey? {
        guard role == .server, method == "CANCEL" else { return nil }
        return SIPTransactionKey(role: .server, branch: branch, sentBy: sentBy, method: "INVITE", legacy: legacy)
    }

    /// Whether this key belongs to an INVITE transaction.
    package var isInvite: Bool { method == "INVITE" }

    /// "client INVITE z9hG4bK..." or "server BYE z9hG4bK... host:port".
    package var description: String {
        let side = role == .client ? "client" : "server"
        let id = legacy.map { "rfc2543 \($0.callID) \($0.cseqNumber)" } ?? branch
        return sentBy.isEmpty ? "\(side) \(method) \(id)" : "\(side) \(method) \(id) \(sentBy)"
    }

    // MARK: - Validation

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            // RFC 3261 §25.1 token: "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~"
            return "-.!%*_+`'~".utf8.contains(byte)
        }
    }

    private static func validate(branch: String) throws(SIPTransactionError) {
        let bytes = branch.utf8
        guard !bytes.isEmpty, bytes.count <= maximumBranchLength, bytes.allSatisfy(isTokenCharacter) else {
            throw .invalidBranch
        }
    }

    private static func validate(method: String) throws(SIPTransactionError) {
        let bytes = method.utf8
        guard !bytes.isEmpty, bytes.count <= maximumMethodLength, bytes.allSatisfy(isTokenCharacter) else {
            throw .invalidMethod
        }
    }

    /// "host:port" with the host lowercased and the transport's default port when none is given.
    private static func normalizedSentBy(host: String, port: Int?, transport: String) throws(SIPTransactionError) -> String {
        let bytes = host.utf8
        guard !bytes.isEmpty, bytes.count <= maximumHostLength,
            bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") })
        else { throw .invalidSentBy }
        let defaultPort = transport.uppercased() == "TLS" ? 5061 : 5060
        let resolvedPort = port ?? defaultPort
        guard (1...65535).contains(resolvedPort) else { throw .invalidSentBy }
        return "\(host.lowercased()):\(resolvedPort)"
    }
}
