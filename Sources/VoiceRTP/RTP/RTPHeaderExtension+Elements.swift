extension RTPHeaderExtension {
    /// Builds an RFC 8285 one-byte-header extension (profile `0xBEDE`), zero-padded to 32 bits.
    ///
    /// - Throws: ``RTPError/badExtensionElement`` if an ID is outside 1-14 or data is not 1-16 bytes.
    package static func oneByte(_ elements: [RTPHeaderExtensionElement]) throws(RTPError) -> RTPHeaderExtension {
        var data: [UInt8] = []
        for element in elements {
            guard (1...14).contains(element.id), (1...16).contains(element.data.count) else {
                throw .badExtensionElement
            }
            data.append(element.id << 4 | UInt8(element.data.count - 1))
            data.append(contentsOf: element.data)
        }
        data.append(contentsOf: repeatElement(0, count: (4 - data.count % 4) % 4))
        return RTPHeaderExtension(profile: oneByteProfile, data: data)
    }

    /// Builds an RFC 8285 two-byte-header extension (profile `0x100` + `appBits`), zero-padded to 32 bits.
    ///
    /// - Throws: ``RTPError/badExtensionElement`` if an ID is 0, data exceeds 255 bytes or `appBits` exceeds 15.
    package static func twoByte(_ elements: [RTPHeaderExtensionElement], appBits: UInt8 = 0) throws(RTPError) -> RTPHeaderExtension {
        guard appBits <= 0x0F else { throw .badExtensionElement }
        var data: [UInt8] = []
        for element in elements {
            guard element.id != 0, element.data.count <= 255 else { throw .badExtensionElement }
            data.append(element.id)
            data.append(UInt8(element.data.count))
            data.append(contentsOf: element.data)
        }
        data.append(contentsOf: repeatElement(0, count: (4 - data.count % 4) % 4))
        return RTPHeaderExtension(profile: twoByteProfile | UInt16(appBits), data: data)
    }

    /// The RFC 8285 elements in this extension, or nil if its profile is not an RFC 8285 form.
    ///
    /// - Throws: ``RTPError/badExtensionElement`` if an element runs past the data.
    package func elements() throws(RTPError) -> [RTPHeaderExtensionElement]? {
        guard let form = elementForm else { return nil }
        return try data.withUnsafeBytes { raw in
            Result { () throws(RTPError) in
                var reader = RTPHeaderExtensionElementReader(data: raw, form: form)
                var result: [RTPHeaderExtensionElement] = []
                while let element = try reader.next() {
                    result.append(RTPHeaderExtensionElement(id: element.id, data: Array(element.data)))
                }
                return result
            }
        }.get()
    }
}
