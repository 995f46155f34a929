extension G711 {
    /// The two G.711 companding laws.
    package enum Law: Hashable, Sendable, CaseIterable {
        /// μ-law (North America, Japan), RTP payload type 0 (PCMU).
        case ulaw
        /// A-law (Europe, rest of world), RTP payload type 8 (PCMA).
        case alaw
    }

    /// Encodes `pcm` into `out`, one byte per sample. Hot path: allocates nothing.
    /// - Returns: bytes written (`pcm.count`), or nil when `out` is shorter than `pcm`.
    @inlinable
    package static func encode(_ pcm: UnsafeBufferPointer<Int16>, law: Law, into out: UnsafeMutableRawBufferPointer) -> Int? {
        guard out.count >= pcm.count else { return nil }
        switch law {
        case .ulaw:
            for (i, s) in pcm.enumerated() { out[i] = ulaw(fromLinear: s) }
        case .alaw:
            for (i, s) in pcm.enumerated() { out[i] = alaw(fromLinear: s) }
        }
        return pcm.count
    }

    /// Decodes `payload` into `pcm`, one sample per byte. Hot path: allocates nothing.
    /// - Returns: samples written (`payload.count`), or nil when `pcm` is shorter than `payload`.
    @inlinable
    package static func decode(_ payload: UnsafeRawBufferPointer, law: Law, into pcm: UnsafeMutableBufferPointer<Int16>) -> Int? {
        guard pcm.count >= payload.count else { return nil }
        switch law {
        case .ulaw:
            for (i, b) in payload.enumerated() { pcm[i] = linear(fromULaw: b) }
        case .alaw:
            for (i, b) in payload.enumerated() { pcm[i] = linear(fromALaw: b) }
        }
        return payload.count
    }
}
