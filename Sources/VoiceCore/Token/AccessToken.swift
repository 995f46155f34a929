import VoiceBytes
import Foundation

/// A Twilio-style access token: a JWT (RFC 7519) whose payload carries the caller's identity
/// and a voice grant, checked locally before any packet is sent and then presented to the
/// server as an RFC 8898 Bearer credential.
///
/// Local checks, in this order, each failing with a ``VoiceError``:
/// 1. at most ``maximumLength`` bytes and three non-empty-headed segments → else 20101
///    ``VoiceError/Code/accessTokenInvalid``;
/// 2. a header segment that is base64url JSON → else 20102 ``VoiceError/Code/accessTokenHeaderInvalid``;
/// 3. a payload segment that is base64url JSON of the right shape → else 20101 (a member of
///    the wrong JSON type, or a missing or non-numeric `exp`, is also 20101);
/// 4. a header with a non-empty `alg` other than `none`, `typ` absent or `JWT`, `cty` absent
///    or `twilio-fpa;v=1` → else 20102;
/// 5. a signature segment that is present and base64url → else 20107
///    ``VoiceError/Code/accessTokenSignatureInvalid``. The signature itself is **not**
///    verified here: the key is the server's secret, and the server verifies it;
/// 6. a non-blank `iss` → else 20103 ``VoiceError/Code/accessTokenIssuerInvalid``;
/// 7. `grants.identity` non-blank and a `grants.voice` object → else 20106
///    ``VoiceError/Code/accessTokenGrantsInvalid``;
/// 8. `exp` − (`iat`, or `nbf`) at most 24 hours → else 20157
///    ``VoiceError/Code/expirationTimeExceedsMaxTimeAllowed``.
///
/// Then, against the clock (``validate(at:)``): `exp` ≤ now → 20104
/// ``VoiceError/Code/accessTokenExpired``; `nbf` > now → 20105
/// ``VoiceError/Code/accessTokenNotYetValid``.
package struct AccessToken: Sendable, Equatable, CustomStringConvertible {
    /// Size limit on the token text, in bytes.
    package static let maximumLength = 8192
    /// The longest lifetime (`exp` − `iat`) a token may have, in seconds.
    package static let maximumLifetime: TimeInterval = 24 * 3600
    /// The content type (`cty`) of Twilio's tokens.
    package static let twilioContentType = "twilio-fpa;v=1"

    /// The token as given: what goes after `Bearer ` in an `Authorization` header.
    package let rawValue: String
    /// The signing algorithm named by the header (e.g. "HS256").
    package let algorithm: String
    /// The issuer (`iss`), e.g. an API key SID.
    package let issuer: String
    /// The subject (`sub`), e.g. an account SID.
    package let subject: String?
    /// The token's identifier (`jti`).
    package let tokenID: String?
    /// The identity the token grants (`grants.identity`).
    package let identity: String
    /// The voice grant (`grants.voice`).
    package let voiceGrant: AccessTokenVoiceGrant
    /// When the token expires (`exp`).
    package let expiresAt: Date
    /// When the token becomes valid (`nbf`), if stated.
    package let notBefore: Date?
    /// When the token was issued (`iat`), if stated.
    package let issuedAt: Date?

    /// Parses and checks `text` (steps 1–8 above), without looking at the clock.
    package init(parsing text: String) throws(VoiceError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength else {
            throw Self.error(.accessTokenInvalid, "The token is \(bytes.count) bytes; the limit is \(Self.maximumLength)")
        }
        guard let segments = AccessTokenSegments(bytes), !segments.header.isEmpty, !segments.payload.isEmpty else {
            throw Self.error(.accessTokenInvalid, "A JWT is three base64url segments separated by dots")
        }
        let header: AccessTokenJSON.Header
        do {
            header = try Self.decodeJSON(AccessTokenJSON.Header.self, segments.header)
        } catch {
            throw Self.error(.accessTokenHeaderInvalid, "The header is not base64url JSON: \(error)")
        }
        let payload: AccessTokenJSON.Payload
        do {
            payload = try Self.decodeJSON(AccessTokenJSON.Payload.self, segments.payload)
        } catch {
            throw Self.error(.accessTokenInvalid, "The payload is not base64url JSON of the expected shape: \(error)")
        }
        guard let exp = payload.exp, exp.isFinite else {
            throw Self.error(.accessTokenInvalid, "The token has no numeric expiration time (exp)")
        }
        guard payload.nbf?.isFinite ?? true, payload.iat?.isFinite ?? true else {
            throw Self.error(.accessTokenInvalid, "The token's nbf or iat is not a finite number")
        }
        guard let alg = header.alg, !alg.isEmpty, alg.lowercased() != "none" else {
            throw Self.error(.accessTokenHeaderInvalid, "The header names no signing algorithm")
        }
        if let typ = header.typ, typ.uppercased() != "JWT" {
            throw Self.error(.accessTokenHeaderInvalid, "The header type is \"\(typ)\", not JWT")
        }
        if let cty = header.cty, cty != Self.twilioContentType {
            throw Self.error(.accessTokenHeaderInvalid, "The header content type is \"\(cty)\", not \(Self.twilioContentType)")
        }
        guard !segments.signature.isEmpty else {
            throw Self.error(.accessTokenSignatureInvalid, "The signature segment is empty")
        }
        do {
            _ = try Self.decodeBase64URL(segments.signature)
        } catch {
            throw Self.error(.accessTokenSignatureInvalid, "The signature segment is not base64url")
        }
        guard let iss = payload.iss, !Self.isBlank(iss) else {
            throw Self.error(.accessTokenIssuerInvalid, "The token has no issuer (iss)")
        }
        guard let identity = payload.grants?.identity, !Self.isBlank(identity) else {
            throw Self.error(.accessTokenGrantsInvalid, "The grants have no identity")
        }
        guard let voice = payload.grants?.voice else {
            throw Self.error(.accessTokenGrantsInvalid, "The grants have no voice grant")
        }
        if let start = payload.iat ?? payload.nbf, exp - start > Self.maximumLifetime {
            throw Self.error(
                .expirationTimeExceedsMaxTimeAllowed,
                "The token lives \(Int(exp - start)) s; the limit is \(Int(Self.maximumLifetime)) s")
        }
        rawValue = text
        algorithm = alg
        issuer = iss
        subject = payload.sub
        tokenID = payload.jti
        self.identity = identity
        voiceGrant = AccessTokenVoiceGrant(
            incomingAllowed: voice.incoming?.allow, outgoingApplicationSid: voice.outgoing?.application_sid,
            outgoingApplicationParams: voice.outgoing?.params ?? [:], pushCredentialSid: voice.push_credential_sid)
        expiresAt = Date(timeIntervalSince1970: exp)
        notBefore = payload.nbf.map { Date(timeIntervalSince1970: $0) }
        issuedAt = payload.iat.map { Date(timeIntervalSince1970: $0) }
    }

    /// Parses `text` and checks it against `now`: the check done before every connect and register.
    package init(parsing text: String, now: Date) throws(VoiceError) {
        try self.init(parsing: text)
        try validate(at: now)
    }

    /// Checks the token's validity window at `now`: expired (`exp` ≤ now) → 20104, not yet
    /// valid (`nbf` > now) → 20105.
    package func validate(at now: Date) throws(VoiceError) {
        if expiresAt <= now {
            throw Self.error(.accessTokenExpired, "The token expired at \(expiresAt)")
        }
        if let notBefore, notBefore > now {
            throw Self.error(.accessTokenNotYetValid, "The token is not valid before \(notBefore)")
        }
    }

    /// The value of an `Authorization` header presenting the token (RFC 8898 / RFC 6750): "Bearer <token>".
    package var bearerAuthorization: String { "Bearer \(rawValue)" }

    /// Identity and expiry, never the token text (it is a credential).
    package var description: String { "AccessToken(identity: \(identity), expires: \(expiresAt))" }

    private static func error(_ code: VoiceError.Code, _ reason: String) -> VoiceError {
        VoiceError(code, failureReason: reason)
    }

    private static func isBlank(_ s: String) -> Bool {
        s.allSatisfy { $0.isWhitespace }
    }

    /// A JWT segment: base64url without padding (RFC 7515 §2).
    private static func decodeBase64URL(_ segment: ArraySlice<UInt8>) throws(Base64.Failure) -> [UInt8] {
        try Base64.decode(segment, alphabet: .url, allowsPadding: false, requiresCanonical: false)
    }

    private static func decodeJSON<T: Decodable>(_ type: T.Type, _ segment: ArraySlice<UInt8>) throws -> T {
        let bytes = try decodeBase64URL(segment)
        return try JSONDecoder().decode(type, from: Data(bytes))
    }
}
