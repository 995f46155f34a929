/// What a media section says about ICE (RFC 8839): credentials, candidates, options, and
/// whether the agent is ICE-lite. Session-level `ice-ufrag`, `ice-pwd`, `ice-options` and
/// `ice-lite` apply to every media section that does not say otherwise.
package struct SDPICEParameters: Hashable, Sendable {
    /// `a=ice-ufrag`: 4–256 ice-chars.
    package var usernameFragment: String
    /// `a=ice-pwd`: 22–256 ice-chars.
    package var password: String
    /// `a=ice-options` tokens (`trickle`, `ice2`…).
    package var options: [String]
    /// `a=ice-lite` at session level.
    package var isLite: Bool
    /// The `a=candidate` lines that parse (a line that does not is ignored, as RFC 8839 §5.1 allows).
    package var candidates: [SDPICECandidate]
    /// `a=end-of-candidates`: gathering is complete.
    package var endOfCandidates: Bool

    package init(
        usernameFragment: String, password: String, options: [String] = [], isLite: Bool = false,
        candidates: [SDPICECandidate] = [], endOfCandidates: Bool = false
    ) {
        self.usernameFragment = usernameFragment
        self.password = password
        self.options = options
        self.isLite = isLite
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }

    /// The ICE parameters of `media` in `session`; nil when it has no valid credentials (no ICE).
    package init?(media: SDPMediaDescription, session: SDPSessionDescription) {
        func value(_ name: String) -> String? {
            media.attributeValues(name).first ?? session.attributes.first { $0.name == name }?.value
        }
        guard let ufrag = value("ice-ufrag"), Self.isCredential(ufrag, lengths: 4...256),
            let pwd = value("ice-pwd"), Self.isCredential(pwd, lengths: 22...256)
        else { return nil }
        self.init(
            usernameFragment: ufrag, password: pwd,
            options: (value("ice-options") ?? "").split(separator: " ").map(String.init),
            isLite: session.attributes.contains { $0.name == "ice-lite" },
            candidates: media.attributeValues("candidate").compactMap { SDPICECandidate(parsing: Substring($0)) },
            endOfCandidates: media.hasAttribute("end-of-candidates") || session.attributes.contains { $0.name == "end-of-candidates" })
    }

    /// The media-level attributes that carry these parameters (`ice-lite` belongs at session level).
    package var mediaAttributes: [SDPAttribute] {
        var attributes = [SDPAttribute(name: "ice-ufrag", value: usernameFragment), SDPAttribute(name: "ice-pwd", value: password)]
        if !options.isEmpty { attributes.append(SDPAttribute(name: "ice-options", value: options.joined(separator: " "))) }
        attributes += candidates.map { SDPAttribute(name: "candidate", value: $0.value) }
        if endOfCandidates { attributes.append(SDPAttribute(name: "end-of-candidates")) }
        return attributes
    }

    private static func isCredential(_ text: String, lengths: ClosedRange<Int>) -> Bool {
        lengths.contains(text.utf8.count) && text.utf8.allSatisfy(SDPICECandidate.isICEChar)
    }
}
