/// Size limits applied while parsing SDP, so hostile bodies cost bounded memory and time.
package struct SDPParserLimits: Hashable, Sendable {
    /// Largest body in bytes. Default 32 KiB (a voice offer is well under 2 KiB).
    package var maxBodyBytes: Int
    /// Longest line in bytes, excluding the line break. Default 2 048.
    package var maxLineBytes: Int
    /// Most lines in the body. Default 512.
    package var maxLines: Int
    /// Most `m=` sections. Default 16.
    package var maxMediaSections: Int
    /// Most `a=` lines in one section (session or media). Default 128.
    package var maxAttributesPerSection: Int
    /// Most formats on one `m=` line. Default 64.
    package var maxFormatsPerMedia: Int

    /// Creates limits; every parameter defaults to the value documented on its property.
    package init(
        maxBodyBytes: Int = 32 * 1024,
        maxLineBytes: Int = 2048,
        maxLines: Int = 512,
        maxMediaSections: Int = 16,
        maxAttributesPerSection: Int = 128,
        maxFormatsPerMedia: Int = 64
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxLineBytes = maxLineBytes
        self.maxLines = maxLines
        self.maxMediaSections = maxMediaSections
        self.maxAttributesPerSection = maxAttributesPerSection
        self.maxFormatsPerMedia = maxFormatsPerMedia
    }

    /// The defaults.
    package static let `default` = SDPParserLimits()
}
