import VoiceAddress
import VoiceSTUN

/// An agent's ICE username fragment and password (RFC 8445 §5.3, `a=ice-ufrag`/`a=ice-pwd`).
package struct ICECredentials: Hashable, Sendable {
    package var usernameFragment: String
    package var password: String

    package init(usernameFragment: String, password: String) {
        self.usernameFragment = usernameFragment
        self.password = password
    }

    /// Fresh credentials: a 4-character fragment and a 24-character password of ice-chars
    /// (RFC 8445 §5.3: at least 24 and 128 bits of randomness; 24 characters of 64 give 144).
    package static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        func draw(_ count: Int) -> String {
            String(decoding: (0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }, as: UTF8.self)
        }
        return ICECredentials(usernameFragment: draw(8), password: draw(24))
    }

    /// The MESSAGE-INTEGRITY key of checks sent to the agent with these credentials.
    var key: STUNIntegrityKey { STUNIntegrityKey(bytes: Array(password.utf8)) }
}

/// The agent's role and its tie-breaker (RFC 8445 §6.1.1, §7.3.1.1).
package struct ICERole: Hashable, Sendable {
    package var isControlling: Bool
    package var tieBreaker: UInt64

    package init(isControlling: Bool, tieBreaker: UInt64) {
        self.isControlling = isControlling
        self.tieBreaker = tieBreaker
    }
}

/// Why a received check or response was not taken.
package enum ICECheckError: Error, Hashable, Sendable {
    /// Not a STUN Binding message, or malformed.
    case notACheck
    /// No FINGERPRINT, or a wrong one (RFC 8445 §7.3: checks carry one).
    case badFingerprint
    /// No MESSAGE-INTEGRITY, or it does not match the password: counted, never answered.
    case badIntegrity
    /// USERNAME is not `<our fragment>:<theirs>` (RFC 8445 §7.3): a 400 would go back, or a
    /// check meant for an earlier session (before an ICE restart).
    case wrongUsername
    /// A request without PRIORITY or without a role attribute (RFC 8445 §7.3: 400).
    case missingAttribute
}

/// A connectivity check received from the peer, validated.
package struct ICEReceivedCheck: Hashable, Sendable {
    package var transactionID: [UInt8]
    /// The PRIORITY the peer would give a peer-reflexive candidate of this source.
    package var priority: UInt32
    /// The peer's role and tie-breaker.
    package var role: ICERole
    /// USE-CANDIDATE: the controlling peer nominates the pair.
    package var useCandidate: Bool
    /// NOMINATION: which nomination this is (a renomination when higher than the last).
    package var nomination: UInt32? = nil
}

/// An answer to one of our checks, validated.
package enum ICECheckResponse: Hashable, Sendable {
    /// Success: the address the peer saw our check come from (XOR-MAPPED-ADDRESS).
    case success(mapped: TransportAddress)
    /// 487 Role Conflict (RFC 8445 §7.2.5.1): switch roles and check again.
    case roleConflict
    /// Another error code.
    case error(Int)
}

/// ICE's connectivity checks as STUN Binding transactions (RFC 8445 §7.2–§7.3): the bytes of
/// requests and responses, and their validation. Pure functions: the agent decides when.
package enum ICEConnectivityCheck {
    /// The request our agent sends on a pair: USERNAME `<remote>:<local>`, PRIORITY of a
    /// peer-reflexive candidate of our base, our role attribute, USE-CANDIDATE when nominating
    /// (with NOMINATION when it renominates), MESSAGE-INTEGRITY with the peer's password,
    /// FINGERPRINT.
    package static func request(
        transactionID: [UInt8], local: ICECredentials, remote: ICECredentials, priority: UInt32, role: ICERole, useCandidate: Bool,
        nomination: UInt32? = nil
    ) -> [UInt8] {
        var attributes = [
            STUNMessage.Attribute(type: STUNMessage.Attribute.username, value: Array("\(remote.usernameFragment):\(local.usernameFragment)".utf8)),
            STUNMessage.Attribute(type: STUNMessage.Attribute.priority, value: bigEndianBytes(priority)),
            STUNMessage.Attribute(
                type: role.isControlling ? STUNMessage.Attribute.iceControlling : STUNMessage.Attribute.iceControlled,
                value: bigEndianBytes(role.tieBreaker)),
        ]
        if useCandidate { attributes.append(STUNMessage.Attribute(type: STUNMessage.Attribute.useCandidate, value: [])) }
        if useCandidate, let nomination {
            attributes.append(STUNMessage.Attribute(type: STUNMessage.Attribute.nomination, value: bigEndianBytes(nomination)))
        }
        return STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: attributes)
            .serialized(integrity: remote.key, fingerprint: true)
    }

    /// Validates a check the peer sent us: a Binding request with a right FINGERPRINT,
    /// MESSAGE-INTEGRITY with our password, USERNAME `<ours>:<theirs>`, PRIORITY and a role.
    /// `remoteFragment` is nil before the peer's answer is known (a check can arrive first).
    package static func readRequest(
        _ bytes: [UInt8], local: ICECredentials, remoteFragment: String?
    ) -> Result<ICEReceivedCheck, ICECheckError> {
        guard let message = try? STUNMessage(parsing: bytes), message.type == .bindingRequest else { return .failure(.notACheck) }
        guard STUNMessage.checkFingerprint(of: bytes) == true else { return .failure(.badFingerprint) }
        guard STUNMessage.checkIntegrity(of: bytes, key: local.key) == .valid else { return .failure(.badIntegrity) }
        guard let username = message.attribute(STUNMessage.Attribute.username).map({ String(decoding: $0.value, as: UTF8.self) }),
            let colon = username.firstIndex(of: ":"), username[..<colon] == local.usernameFragment,
            remoteFragment.map({ username[username.index(after: colon)...] == $0 }) ?? true
        else { return .failure(.wrongUsername) }
        guard let priority = message.attribute(STUNMessage.Attribute.priority).flatMap({ integer($0.value, bytes: 4) }) else {
            return .failure(.missingAttribute)
        }
        let role: ICERole
        if let value = message.attribute(STUNMessage.Attribute.iceControlling).flatMap({ integer($0.value, bytes: 8) }) {
            role = ICERole(isControlling: true, tieBreaker: value)
        } else if let value = message.attribute(STUNMessage.Attribute.iceControlled).flatMap({ integer($0.value, bytes: 8) }) {
            role = ICERole(isControlling: false, tieBreaker: value)
        } else {
            return .failure(.missingAttribute)
        }
        return .success(
            ICEReceivedCheck(
                transactionID: message.transactionID, priority: UInt32(priority), role: role,
                useCandidate: message.attribute(STUNMessage.Attribute.useCandidate) != nil,
                nomination: message.attribute(STUNMessage.Attribute.nomination).flatMap { integer($0.value, bytes: 4) }.map { UInt32($0) }))
    }

    /// Our success response to a check from `source`: XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY with
    /// our password, FINGERPRINT (RFC 8445 §7.3.1.4).
    package static func successResponse(to check: ICEReceivedCheck, from source: TransportAddress, local: ICECredentials) -> [UInt8] {
        let attribute = STUNMessage.Attribute(
            type: STUNMessage.Attribute.xorMappedAddress, value: source.xorAttributeValue(transactionID: check.transactionID))
        return STUNMessage(type: .bindingSuccess, transactionID: check.transactionID, attributes: [attribute])
            .serialized(integrity: local.key, fingerprint: true)
    }

    /// Our error response (487 Role Conflict, 400 Bad Request) to a check.
    package static func errorResponse(_ code: Int, reason: String, transactionID: [UInt8], local: ICECredentials) -> [UInt8] {
        let value = [0, 0, UInt8(code / 100), UInt8(code % 100)] + Array(reason.utf8)
        return STUNMessage(
            type: .bindingError, transactionID: transactionID,
            attributes: [STUNMessage.Attribute(type: STUNMessage.Attribute.errorCode, value: value)]
        ).serialized(integrity: local.key, fingerprint: true)
    }

    /// Validates the peer's answer to one of our checks: its FINGERPRINT and its
    /// MESSAGE-INTEGRITY with the peer's password (RFC 8445 §7.2.5.1). Matching the transaction
    /// ID to the request is the caller's.
    package static func readResponse(_ bytes: [UInt8], remote: ICECredentials) -> Result<ICECheckResponse, ICECheckError> {
        guard let message = try? STUNMessage(parsing: bytes), message.type == .bindingSuccess || message.type == .bindingError else {
            return .failure(.notACheck)
        }
        guard STUNMessage.checkFingerprint(of: bytes) == true else { return .failure(.badFingerprint) }
        guard STUNMessage.checkIntegrity(of: bytes, key: remote.key) == .valid else { return .failure(.badIntegrity) }
        do throws(STUNError) {
            let mapped = try TransportAddress(stunResponse: message)
            return .success(.success(mapped: mapped))
        } catch .errorResponse(let code) {
            return .success(code == 487 ? .roleConflict : .error(code))
        } catch {
            return .failure(.missingAttribute)
        }
    }

    private static func integer(_ value: [UInt8], bytes: Int) -> UInt64? {
        guard value.count == bytes else { return nil }
        return value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
