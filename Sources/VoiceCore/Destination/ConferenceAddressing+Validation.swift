import VoiceSIPAgent

extension ConferenceAddressing {
    /// Checks that the form makes a valid request: a prefix of URI user characters, a host
    /// name, a header name that is an RFC 3261 token.
    /// - Throws: 31100 ``VoiceError/Code/malformedRequest`` naming what is wrong.
    package func validate() throws(VoiceError) {
        let userCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!~*'()&=+$,;?/")
        let hostCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.:[]")
        let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.!%*_+`'~")
        switch self {
        case .uriParameter:
            return
        case .userPrefix(let prefix):
            guard prefix.allSatisfy(userCharacters.contains) else { throw Self.invalid("prefix \(prefix)") }
        case .host(let host):
            guard !host.isEmpty, host.allSatisfy(hostCharacters.contains) else { throw Self.invalid("host \(host)") }
        case .focus(let user, let header):
            guard !user.isEmpty, user.allSatisfy(userCharacters.contains) else { throw Self.invalid("user \(user)") }
            guard !header.isEmpty, header.allSatisfy(tokenCharacters.contains) else { throw Self.invalid("header name \(header)") }
        }
    }

    private static func invalid(_ what: String) -> VoiceError {
        VoiceError(.malformedRequest, failureReason: "The conference addressing's \(what) cannot go into a SIP request")
    }
}
