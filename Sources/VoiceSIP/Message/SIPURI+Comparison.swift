extension SIPURI {
    /// Compares two URIs by the rules of RFC 3261 §19.1.4.
    ///
    /// Schemes must match; user and password compare case-sensitively after unescaping; hosts
    /// compare case-insensitively (IPv6 addresses by value, RFC 5118); an absent port never
    /// equals an explicit one; `user`, `ttl`, `method`, `maddr` and `transport` must match when
    /// either URI has them; other parameters compare only when both have them; headers must all match.
    package func isEquivalent(to other: SIPURI) -> Bool {
        guard scheme == other.scheme else { return false }
        switch scheme {
        case .other:
            return opaque == other.opaque
        case .tel:
            let strip: (String?) -> String = { ($0 ?? "").filter { !"-.()".contains($0) }.lowercased() }
            return strip(user) == strip(other.user) && parametersMatch(other, required: ["phone-context"])
        case .sip, .sips:
            guard user == other.user, password == other.password, port == other.port else { return false }
            if isIPv6 || other.isIPv6 {
                guard let a = SIPURI.ipv6Bytes(ArraySlice(host.utf8)),
                    let b = SIPURI.ipv6Bytes(ArraySlice(other.host.utf8)), a == b
                else { return false }
            } else if host.lowercased() != other.host.lowercased() {
                return false
            }
            guard parametersMatch(other, required: ["user", "ttl", "method", "maddr", "transport"]) else { return false }
            return headersMatch(other) && other.headersMatch(self)
        }
    }

    private func parametersMatch(_ other: SIPURI, required: Set<String>) -> Bool {
        for p in parameters {
            let name = p.name.lowercased()
            if let theirs = other.parameters[name] {
                guard theirs?.lowercased() == p.value?.lowercased() else { return false }
            } else if required.contains(name) {
                return false
            }
        }
        for p in other.parameters where required.contains(p.name.lowercased()) {
            guard parameters.contains(p.name) else { return false }
        }
        return true
    }

    private func headersMatch(_ other: SIPURI) -> Bool {
        headers.allSatisfy { h in
            other.headers.contains { $0.name.lowercased() == h.name.lowercased() && $0.value == h.value }
        }
    }
}
